/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runs a libFuzzer target over files without libFuzzer (plain gcc), so
 * that make check-host replays the corpus as a regression test.
 * Usage: replay_conf FILE|DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;

	if (!fp || fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET)) {
		perror(path);
		return 1;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, fp) != (size_t)size) {
		perror(path);
		return 1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, n = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		char path[4096];

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad += replay_file(argv[i]);
			n++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			bad += replay_file(path);
			n++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d inputs, %d unreadable\n", n, bad);
	return bad != 0 || n == 0;
}
