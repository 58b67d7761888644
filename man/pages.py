# SPDX-License-Identifier: BSD-3-Clause
"""The section 3 pages, one entry per call: man/gen.py renders them.

Facts come from the DAT 1.2 semantics and from this implementation's code
(dat/, registry/, udapl/, providers/cma/); every error listed is one the
code returns.  Keys: name, brief, params [(name, text)], desc, errors
[(TYPE, SUBTYPE, when)], notes, see, include, handle (for the dispatch
check), proto (declaration to show), synopsis (verbatim).
"""


def arg(n, when):
    return ("DAT_INVALID_PARAMETER", "DAT_INVALID_ARG%d" % n, when)


def bad(sub, when):
    return ("DAT_INVALID_HANDLE", sub, when)


OK = ("DAT_SUCCESS", "The call succeeded.")
NOMEM = ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY",
         "Memory for the object could not be allocated.")
EP_STATE = ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_*",
            "The endpoint is in a state that does not allow the call; the "
            "subtype names the state (for example DAT_INVALID_STATE_EP_CONNECTED "
            "or DAT_INVALID_STATE_EP_UNCONFIGURED for an EP whose queue pair "
            "could not be rebuilt).")

STALE = """Handles are checked twice: libdat checks that the first word of
the object is the table of a registered provider, and the provider checks a
per-type magic number that is cleared when the object is freed (freed
objects stay mapped on per-type free lists while the provider is loaded).
So a freed handle or a handle of the wrong type gets DAT_INVALID_HANDLE
rather than undefined behaviour, as long as its provider is loaded."""

MASK = lambda obj, n: (
    "Which fields of *%s_param* to fill: any OR of the DAT_%s_FIELD_* bits "
    "of <dat/dat.h> (DAT_%s_FIELD_ALL for all of them).  A bit outside "
    "DAT_%s_FIELD_ALL is an error (DAT_INVALID_ARG%d)." % (
        obj, obj.upper(), obj.upper(), obj.upper(), n))

COMPLETION_FLAGS = """= DAT_COMPLETION_DEFAULT_FLAG (0x00): a completion event on the request EVD.
= DAT_COMPLETION_SUPPRESS_FLAG (0x01): no event when the operation succeeds; an error still makes one.
= DAT_COMPLETION_SOLICITED_WAIT_FLAG (0x02): for a send, ask the receiver's EVD to wake on this message (the verbs solicited bit).
= DAT_COMPLETION_UNSIGNALLED_FLAG (0x04): allowed only if the EP's request_completion_flags include it; like SUPPRESS, the transport may skip the completion.
= DAT_COMPLETION_BARRIER_FENCE_FLAG (0x08): start only after every earlier RDMA read of the EP has completed (the verbs fence bit)."""

PAGES = []


def page(**kw):
    PAGES.append(kw)


# ---------------------------------------------------------------- IA
page(name="dat_ia_open", brief="open an interface adapter by its dat.conf name",
     synopsis="""DAT_RETURN dat_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
    DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia);""",
     params=[("name", "The IA name: the first field of a dat.conf1(5) entry, or the name a provider registered with dat_registry_add_provider().  At most 255 characters and a NUL."),
             ("qlen", "The queue length of the asynchronous event EVD (dat_ia_openv()'s *async_evd_qlen*) that the provider creates when *async_evd* is DAT_HANDLE_NULL; must then be positive."),
             ("async_evd", """In: which EVD receives the IA's asynchronous events.
= DAT_HANDLE_NULL: create a new one of *qlen* entries; its handle is returned here.
= DAT_EVD_ASYNC_EXISTS ((DAT_EVD_HANDLE)1): share the async EVD of an IA that is already open through the same dat.conf entry.
= an EVD handle: an EVD created with DAT_EVD_ASYNC_FLAG (0x100).
An EVD shared either way stays its IA's: when that IA closes, the IAs that
took it let go of it, and their asynchronous events are dropped from then on
(dat_ia_query() then gives DAT_HANDLE_NULL for one passed by its handle)."""),
             ("ia", "Out: the handle of the opened IA.")],
     desc="""dat_ia_open() is a macro in <dat/dat.h>: it calls dat_ia_openv() with
the DAT version the program was compiled against (DAT_VERSION_MAJOR 1,
DAT_VERSION_MINOR 2) and DAT_THREADSAFE, which <dat/udat_config.h> defines as
DAT_FALSE.  A program built with the reference headers therefore asks for the
nonthreadsafe entry of its IA name; define DAT_THREADSAFE as DAT_TRUE before
including the headers to ask for the threadsafe one.

Everything else is as described in dat_ia_openv(3), including the errors.""",
     errors=[OK, ("DAT_*", "See dat_ia_openv(3): dat_ia_open() returns what dat_ia_openv() returns.")],
     notes="There is no dat_ia_open symbol in libdat.so.1; a program that takes the address of dat_ia_open must use dat_ia_openv.",
     see=["dat_ia_openv", "dat_ia_close", "dat_ia_query", "dat.conf"])

page(name="dat_ia_openv", brief="open an interface adapter for a given DAT version and thread safety",
     handle="ia_handle",
     params=[("name", "The IA name (dat.conf1(5) first field), NUL-terminated within DAT_NAME_MAX_LENGTH (256) bytes."),
             ("async_evd_qlen", "Queue length of the async EVD created when *async_evd_handle* is DAT_HANDLE_NULL (positive)."),
             ("async_evd_handle", """In/out: the async EVD to use.
= DAT_HANDLE_NULL: the provider creates one and returns it here; it is freed with the IA.
= DAT_EVD_ASYNC_EXISTS (1): reuse the async EVD of another IA opened through the same dat.conf entry.
= an EVD handle created with DAT_EVD_ASYNC_FLAG (0x100): use that EVD; it cannot be freed while the IA is open."""),
             ("ia_handle", "Out: the new IA."),
             ("dapl_major", "The DAT major version the consumer wants (1)."),
             ("dapl_minor", "The DAT minor version the consumer wants (2)."),
             ("thread_safety", "DAT_TRUE for the threadsafe entry, DAT_FALSE for the nonthreadsafe one; any non-zero value means DAT_TRUE.")],
     desc="""dat_ia_openv() finds the provider registered under the key (*name*,
*dapl_major*, *dapl_minor*, *thread_safety*): first among the dat.conf
entries, then among the providers registered at run time.  On the first
open through a dat.conf entry libdat dlopen()s the entry's library, calls
its dat_provider_init() with the key and the entry's ia_params, and expects
the provider to register itself with dat_registry_add_provider().  Then it
calls the provider's ia_open function.

libdat remembers which entry each IA came through: dat_ia_close() releases
exactly that entry, and the last close of an entry calls the library's
dat_provider_fini() but leaves the library loaded, so that the next open
calls dat_provider_init() again without loading it; libdat unloads the
libraries no IA uses at exit (an atexit handler).  A forked child loads a
library its parent left unused afresh.  A failed open releases the entry
again.

The verbs provider libdaplcma.so.1 reads the entry's ia_params ("<netdev,
IP address or hostname> <port>" or "<verbs device> <port>"), binds an
rdma_cm id to that address to find the device and port, opens the device
and starts the IA's connection-manager thread.

Thread safety: the providers of this project (libdaplcma.so.1,
libdaplofi.so.1) lock an IA opened through a nonthreadsafe entry exactly as
one opened through a threadsafe entry, because the dat_ia_open() macro
opens every IA nonthreadsafe, multi-threaded programs included.  A consumer
that uses each IA from one thread at a time can opt out by setting the
environment variable DAPL_NONTHREADSAFE_NOLOCK=1 (exactly "1") before
dat_ia_openv(): an IA then opened through a nonthreadsafe entry takes no
lock in dat_ep_post_send(), dat_ep_post_recv(), dat_ep_post_rdma_read(),
dat_ep_post_rdma_write() or in dat_evd_dequeue() of an EVD whose only
streams are DAT_EVD_DTO_FLAG and DAT_EVD_RMR_BIND_FLAG; the consumer must
then never call into one IA's objects from two threads at once.  The
providers' own threads (connection manager, progress) stay safe with it.
A threadsafe entry always locks.  dat_ia_query(3) reports is_thread_safe
as the IA was opened (DAT_FALSE through a nonthreadsafe entry, locked or
not; DAT_TRUE through a threadsafe one): a libdat keyed like the reference
releases the registry entry at dat_ia_close(3) under that value.""",
     errors=[OK,
             arg(1, "libdat: *name* is NULL or has no NUL within 256 bytes."),
             ("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_IA", "libdat: *ia_handle* is NULL."),
             arg(2, "*async_evd_handle* is DAT_HANDLE_NULL and *async_evd_qlen* is not positive."),
             arg(3, "*async_evd_handle* is NULL."),
             ("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_EVD_ASYNC", "*async_evd_handle* is not an async EVD, or it is DAT_EVD_ASYNC_EXISTS and no IA of the entry is open."),
             ("DAT_PROVIDER_NOT_FOUND", "DAT_NAME_NOT_REGISTERED", "No entry has this name; also when the entry's library cannot be loaded, has no dat_provider_init, or did not register the name, and when DAT_OVERRIDE names a file that cannot be read."),
             ("DAT_PROVIDER_NOT_FOUND", "DAT_MAJOR_NOT_FOUND", "The name is registered, but not with this major version."),
             ("DAT_PROVIDER_NOT_FOUND", "DAT_MINOR_NOT_FOUND", "Name and major match, the minor version does not."),
             ("DAT_PROVIDER_NOT_FOUND", "DAT_THREAD_SAFETY_NOT_FOUND", "Everything matches but the thread safety."),
             arg(1, "libdaplcma: the entry's ia_params name no address, interface or verbs device, or a port the device does not have."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_DEVICE", "libdaplcma: no RDMA device serves the address, or the device cannot be queried."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "Memory, file descriptors or threads for the IA could not be had."),
             ("DAT_INVALID_STATE", "DAT_NO_SUBTYPE", "libdaplcma and libdaplscm: the calling process is a child forked from a process that had opened an IA of the same library: librdmacm cannot start again in a child, and libibverbs' device list may be locked by a parent thread; the child may only close the inherited IAs, exit or exec; a message says so.  (libdaplofi's children open IAs of their own.)"),
             ("DAT_INTERNAL_ERROR", "DAT_NO_SUBTYPE", "libdaplcma: an unexpected rdma_cm or verbs failure.")],
     notes="""The not-found subtype is the most precise one: libdat looks at every
registered key and reports how far the best one matches (name, then major,
then minor, then thread safety), where the reference returned
DAT_NAME_NOT_REGISTERED for everything.  Set DAT_DBG_TYPE=0x4 to see how
dat.conf was read and why an entry was skipped; datadm(8) -v shows each
entry's status without opening it.

The async EVD of libdaplcma receives DAT_ASYNC_ERROR_EP_BROKEN and other
async errors that the device's async-event thread turns into events; a
fatal device error is DAT_ASYNC_ERROR_IA_CATASTROPHIC (close the IA).  A
port that goes down (a cable, a link flap) posts nothing there: each
connection through it ends with DAT_CONNECTION_EVENT_BROKEN and its DTOs
flush, and once the port is up again the same IA connects anew.""",
     see=["dat_ia_open", "dat_ia_close", "dat_ia_query", "dat_registry_list_providers", "dat.conf", "datadm", "dat_provider_init"])

page(name="dat_ia_close", brief="close an interface adapter",
     no_dispatch=True,
     params=[("ia_handle", "The IA to close."),
             ("close_flags", """How:
= DAT_CLOSE_ABRUPT_FLAG (0x00): destroy every object of the IA, in dependency order, and close it.  Also DAT_CLOSE_DEFAULT.
= DAT_CLOSE_GRACEFUL_FLAG (0x01): close only if the consumer has freed every object of the IA but its async EVD.""")],
     desc="""dat_ia_close() is answered by libdat itself: it looks the handle up among
the IAs it opened, calls the provider's ia_close, and on success releases the
dat.conf entry the IA came through, which calls dat_provider_fini() when it
was its last IA (the library itself is unloaded at exit).

An abrupt close tears down, newest first within each type: CRs, EPs, RSPs,
PSPs, RMRs, LMRs (shared ones before the LMR they share), SRQs, PZs, EVDs and
CNOs; connected EPs are disconnected abruptly, waiters in dat_evd_wait() and
dat_cno_wait() are woken.  The async EVD the IA created goes with it; one the
consumer passed in stays and can be freed afterwards.""",
     errors=[OK,
             bad("DAT_INVALID_HANDLE_IA", "libdat: *ia_handle* is NULL, misaligned, not an IA libdat opened, or one whose close is already in progress in another thread."),
             arg(2, "*close_flags* is neither DAT_CLOSE_ABRUPT_FLAG nor DAT_CLOSE_GRACEFUL_FLAG."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_IA_IN_USE", "DAT_CLOSE_GRACEFUL_FLAG and the IA still owns objects; nothing was closed.")],
     notes="""Because libdat tracks open IAs, a handle libdat never returned (or one
already closed) is rejected without calling into any provider.  Consumers
that close from several threads at once get DAT_INVALID_HANDLE in all but
one.""",
     see=["dat_ia_openv", "dat_ia_query"])

page(name="dat_ia_query", brief="query the attributes of an interface adapter and its provider",
     handle="ia_handle",
     params=[("ia_handle", "The IA."),
             ("async_evd_handle", "Out, may be NULL: the IA's async EVD."),
             ("ia_attr_mask", "Which fields of *ia_attr* to fill: DAT_IA_FIELD_* bits, DAT_IA_ALL for all; 0 for none."),
             ("ia_attr", "Out: the IA attributes; may be NULL only when *ia_attr_mask* is 0."),
             ("provider_attr_mask", "Which fields of *provider_attr* to fill: DAT_PROVIDER_FIELD_* bits, DAT_PROVIDER_FIELD_ALL for all; 0 for none."),
             ("provider_attr", "Out: the provider attributes; may be NULL only when *provider_attr_mask* is 0.")],
     desc="""dat_ia_query() returns the limits of the IA (from the verbs device and
port behind it) and the features of the provider.  The limits bound what
dat_ep_create(), dat_evd_create() and dat_lmr_create() accept.""",
     errors=[OK, arg(4, "*ia_attr_mask* is not 0 and *ia_attr* is NULL."),
             arg(6, "*provider_attr_mask* is not 0 and *provider_attr* is NULL.")],
     notes="""libdaplcma.so.1 reports: provider_name "cma" (its transport; the dat.conf
entry's provider_version field is not reported back), provider version 1.0,
dapl_version 1.2, is_thread_safe
the thread safety the IA was opened with (DAT_FALSE through a
nonthreadsafe entry, as the dat_ia_open() macro opens, DAT_TRUE through a
threadsafe one; whether a nonthreadsafe IA takes locks is
DAPL_NONTHREADSAFE_NOLOCK's business, see dat_ia_openv(3);
libdaplofi.so.1 the same), ep_creator DAT_PSP_CREATES_EP_IFASKED (DAT_PSP_PROVIDER_FLAG, see
dat_psp_create(3)), pz_support DAT_PZ_UNIQUE,
dat_qos_supported DAT_QOS_BEST_EFFORT only, lmr_mem_types_supported
DAT_MEM_TYPE_VIRTUAL and DAT_MEM_TYPE_LMR, iov_ownership_on_return
DAT_IOV_CONSUMER, completion flags including DAT_COMPLETION_EVD_THRESHOLD_FLAG,
srq_supported DAT_TRUE where the device has SRQs (srq_watermarks_supported 0,
srq_ep_pz_difference_supported DAT_FALSE, srq_info_supported 1: of the two
counts of dat_srq_query(3) only the outstanding one is known),
max_private_data_size 40 (the 56 bytes rdma_cm carries in a connection
request less the 16-byte header that names the full 64-bit qualifier, see
dat_psp_create(3)),
max_iov_segments_* at most 64 (scatter lists are built on the stack),
max_evd_qlen the device's max_cqe.  max_rmrs is the device's memory window
count, 0 where the device has none or DAPL_CMA_DISABLE=mw is set; max_srqs
likewise with DAPL_CMA_DISABLE=srq.  The provider-specific attributes
include DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP, "TRUE" when the device
does IB atomics (see dat_ib_post_fetch_and_add(3)), "FALSE" where it does not
or DAPL_CMA_DISABLE=atomic is set.  The IA attributes carry one vendor
attribute (num_vendor_attr 1): DAPL_RMR_FENCES, in decimal the number of
automatic fences dat_rmr_bind(3) has applied on the EPs of this IA so far (a
debug counter).

libdaplofi.so.1 (libfabric) reports adapter_name the libfabric provider
(e.g. tcp;ofi_rxm, or tcp for its connected FI_EP_MSG endpoints: see
dat_ep_connect(3)) and the limits of its fi_info; max_rmrs its registration
count (memory windows are emulated: see dat_rmr_bind(3)); max_srqs 0; the
provider-specific attributes DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP
"TRUE" only where the libfabric provider offers FI_ATOMIC and FI_UINT64
fetch FI_SUM and FI_CSWAP are valid on its endpoints (fi_fetch_atomicvalid(),
fi_compare_atomicvalid() at dat_ia_open()); and a sixth attribute,
DAPL_RMR_EMULATION, which says what its emulated memory windows do not
give.""",
     see=["dat_ia_openv", "dat_ep_create", "dat_evd_create"])

# ---------------------------------------------------------------- handles
page(name="dat_set_consumer_context", brief="attach a consumer context to any DAT object",
     handle="dat_handle",
     params=[("dat_handle", "A handle of any type: IA, EP, EVD, CNO, PZ, LMR, RMR, PSP, RSP, CR or SRQ."),
             ("context", "The value to store: a DAT_CONTEXT union of a pointer and a 64-bit integer.")],
     desc="dat_set_consumer_context() stores *context* in the object; dat_get_consumer_context() returns it.  A new object's context is zero.  The provider never interprets it.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: the handle is not a live object of any type.")],
     see=["dat_get_consumer_context", "dat_get_handle_type"])

page(name="dat_get_consumer_context", brief="read the consumer context of a DAT object",
     handle="dat_handle",
     params=[("dat_handle", "A handle of any type."),
             ("context", "Out: the context last stored with dat_set_consumer_context(), zero if none.")],
     desc="dat_get_consumer_context() returns the value the consumer attached to the object.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: the handle is not a live object."),
             arg(2, "*context* is NULL.")],
     see=["dat_set_consumer_context", "dat_get_handle_type"])

page(name="dat_get_handle_type", brief="find out what kind of DAT object a handle names",
     handle="dat_handle",
     params=[("dat_handle", "A handle of any type."),
             ("handle_type", """Out: one of
= DAT_HANDLE_TYPE_CR (0), DAT_HANDLE_TYPE_EP (1), DAT_HANDLE_TYPE_EVD (2), DAT_HANDLE_TYPE_IA (3): connection request, endpoint, event dispatcher, interface adapter.
= DAT_HANDLE_TYPE_LMR (4), DAT_HANDLE_TYPE_PSP (5), DAT_HANDLE_TYPE_PZ (6), DAT_HANDLE_TYPE_RMR (7): local memory region, public service point, protection zone, remote memory region.
= DAT_HANDLE_TYPE_RSP (8), DAT_HANDLE_TYPE_CNO (9), DAT_HANDLE_TYPE_SRQ (10): reserved service point, notification object, shared receive queue.""")],
     desc="dat_get_handle_type() reports the type of a live object.  It is the one way to tell the type of a handle received in an event.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live object (freed, or never one)."),
             arg(2, "*handle_type* is NULL.")],
     notes=STALE,
     see=["dat_set_consumer_context"])

# ---------------------------------------------------------------- CNO
page(name="dat_cno_create", brief="create a consumer notification object",
     handle="ia_handle",
     params=[("ia_handle", "The IA."),
             ("agent", "The wait proxy agent: a DAT_OS_WAIT_PROXY_AGENT of an instance pointer and a function called with it and the EVD handle when an attached, enabled EVD gets an event (a connection request, a connection or asynchronous event, a software event, a DTO completion) and no one waits on that EVD.  DAT_OS_WAIT_PROXY_AGENT_NULL for none."),
             ("cno_handle", "Out: the new CNO.")],
     desc="""A CNO is a single point a thread can block on for many EVDs: EVDs are
attached to it with dat_evd_create() or dat_evd_modify_cno(), and
dat_cno_wait() returns one of them once it has an event.""",
     errors=[OK, arg(3, "*cno_handle* is NULL."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "No memory, or no eventfd could be created.")],
     notes="""A CNO is an eventfd plus the list of attached EVDs; waiting is poll(2) on it and on the completion channels of the attached DTO EVDs.

The agent runs on the IA's progress thread, with no lock of the library held and never inside another DAT call: it may call any DAT function, on the objects of the event or others, dat_ep_free() and dat_ia_close() included.  It is called when events came to an EVD since its last call for that EVD (several events may share one call); they stay queued until the consumer dequeues them.  The agent stays associated with the CNO after a call (the DAT 1.2 page says it is no longer associated; calling dat_cno_modify_agent() again, as a program written for that page does, is harmless).""",
     see=["dat_cno_wait", "dat_cno_free", "dat_cno_modify_agent", "dat_cno_query", "dat_evd_modify_cno"])

page(name="dat_cno_modify_agent", brief="change the wait proxy agent of a CNO", handle="cno_handle",
     params=[("cno_handle", "The CNO."), ("agent", "The new proxy agent, or DAT_OS_WAIT_PROXY_AGENT_NULL.")],
     desc="dat_cno_modify_agent() replaces the agent; later notifications call the new one.  The agent is called without the provider's locks held.",
     errors=[OK, bad("DAT_INVALID_HANDLE_CNO", "The provider: not a live CNO.")],
     see=["dat_cno_create", "dat_cno_query"])

page(name="dat_cno_query", brief="query a CNO", handle="cno_handle",
     params=[("cno_handle", "The CNO."), ("cno_param_mask", MASK("cno", 2)),
             ("cno_param", "Out: DAT_CNO_FIELD_IA_HANDLE (the IA), DAT_CNO_FIELD_AGENT (the proxy agent).")],
     desc="dat_cno_query() returns the IA and the proxy agent of the CNO.",
     errors=[OK, bad("DAT_INVALID_HANDLE_CNO", "The provider: not a live CNO."),
             arg(2, "A bit outside DAT_CNO_FIELD_ALL."), arg(3, "*cno_param* is NULL.")],
     see=["dat_cno_create", "dat_cno_modify_agent"])

page(name="dat_cno_free", brief="destroy a CNO", handle="cno_handle",
     params=[("cno_handle", "The CNO.")],
     desc="dat_cno_free() destroys a CNO that no EVD is attached to and no thread waits on.",
     errors=[OK, bad("DAT_INVALID_HANDLE_CNO", "The provider: not a live CNO."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_CNO_IN_USE", "An EVD is still attached or a thread is in dat_cno_wait(); detach with dat_evd_modify_cno(evd, DAT_HANDLE_NULL) first.")],
     see=["dat_cno_create", "dat_evd_modify_cno"])

page(name="dat_cno_wait", brief="wait for an event on any EVD attached to a CNO", handle="cno_handle",
     params=[("cno_handle", "The CNO."),
             ("timeout", "Microseconds to wait; 0 only checks; DAT_TIMEOUT_INFINITE (~0U) waits for ever."),
             ("evd_handle", "Out: an attached EVD that has an event, or DAT_HANDLE_NULL (see below).")],
     desc="""dat_cno_wait() scans the attached EVDs that are enabled and have no waiter
of their own, and returns the first that has an event; it does not dequeue
the event.  With none, it arms their completion queues and blocks until one
of them, or a software, connection or async event, notifies the CNO.

It returns DAT_SUCCESS with *evd_handle* DAT_HANDLE_NULL when the CNO loses
its last EVD or is being destroyed by an abrupt dat_ia_close() while the
thread waits.""",
     errors=[OK, bad("DAT_INVALID_HANDLE_CNO", "The provider: not a live CNO."),
             arg(3, "*evd_handle* is NULL."),
             ("DAT_QUEUE_EMPTY", "DAT_NO_SUBTYPE", "The timeout expired with no event (the DAT 1.2 return for a CNO timeout, not DAT_TIMEOUT_EXPIRED)."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "The poll set could not be allocated.")],
     notes="""Disabled EVDs and EVDs on which a thread is in dat_evd_wait() do not
notify the CNO, as the specification requires.  Because the CNO polls the
completion channels themselves, completions that arrive while nobody waits
are not lost: the next scan finds them.""",
     see=["dat_cno_create", "dat_evd_modify_cno", "dat_evd_wait", "dat_evd_dequeue"])

# ---------------------------------------------------------------- EVD
page(name="dat_evd_create", brief="create an event dispatcher", handle="ia_handle",
     params=[("ia_handle", "The IA."),
             ("evd_min_qlen", "The least number of events the EVD must hold: 1 to max_evd_qlen of dat_ia_query()."),
             ("cno_handle", "A CNO of this IA to attach the EVD to, or DAT_HANDLE_NULL."),
             ("evd_flags", """The event streams, any OR of:
= DAT_EVD_SOFTWARE_FLAG (0x001): dat_evd_post_se() events.
= DAT_EVD_CR_FLAG (0x010): connection requests of PSPs and RSPs.
= DAT_EVD_DTO_FLAG (0x020): completions of posts (send, receive, RDMA).
= DAT_EVD_CONNECTION_FLAG (0x040): connection events of EPs.
= DAT_EVD_RMR_BIND_FLAG (0x080): completions of dat_rmr_bind().
= DAT_EVD_ASYNC_FLAG (0x100): asynchronous errors of the IA.
= DAT_EVD_DEFAULT_FLAG (0x1F0): CR, DTO, connection, RMR bind and async."""),
             ("evd_handle", "Out: the new EVD.")],
     desc="""An EVD is a queue of DAT_EVENTs.  This provider accepts any combination
of streams on one EVD.  An EVD with DTO or RMR bind streams gets a verbs
completion queue and completion channel of its own; software-made events
(software, CR, connection, async) go to a ring of *evd_min_qlen* events.  A new
EVD is enabled and waitable.""",
     errors=[OK, arg(2, "*evd_min_qlen* is below 1 or above max_evd_qlen."),
             bad("DAT_INVALID_HANDLE_CNO", "*cno_handle* is not a live CNO of this IA."),
             arg(4, "*evd_flags* is 0 or has a bit that is not a stream flag."),
             arg(5, "*evd_handle* is NULL."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "No memory or no eventfd."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_TEVD", "libdaplcma: the device could not create the completion queue or channel."),
             arg(2, "libdaplcma: the device refused the completion queue size.")],
     notes="""EVD/CQ design: completions stay in the CQ until a dequeue or wait takes
them.  dat_evd_dequeue() takes the ring first, then polls one completion
straight into the consumer's event; dat_evd_wait() moves completions into
the ring (only as many as fit, so none is lost or counted twice) until its
threshold is met.  The hot path makes no allocation and no system call of
its own.""",
     see=["dat_evd_free", "dat_evd_wait", "dat_evd_dequeue", "dat_evd_query", "dat_evd_resize", "dat_evd_modify_cno", "dat_cno_create"])

page(name="dat_evd_free", brief="destroy an event dispatcher", handle="evd_handle",
     params=[("evd_handle", "The EVD.")],
     desc="dat_evd_free() destroys an EVD that no other object uses.  Events still queued are discarded.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EVD_IN_USE", "An EP, PSP or RSP refers to the EVD, it is the async EVD of an open IA, or a thread waits on it.")],
     see=["dat_evd_create", "dat_ep_free", "dat_psp_free"])

page(name="dat_evd_query", brief="query an event dispatcher", handle="evd_handle",
     params=[("evd_handle", "The EVD."), ("evd_param_mask", MASK("evd", 2)),
             ("evd_param", "Out: DAT_EVD_FIELD_IA_HANDLE, DAT_EVD_FIELD_EVD_QLEN (the real queue length), DAT_EVD_FIELD_EVD_STATE (DAT_EVD_STATE_* bits: ENABLED 0x01, DISABLED 0x02, WAITABLE 0x04, UNWAITABLE 0x08), DAT_EVD_FIELD_CNO, DAT_EVD_FIELD_EVD_FLAGS.")],
     desc="dat_evd_query() returns the EVD's parameters.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             arg(2, "A bit outside DAT_EVD_FIELD_ALL."), arg(3, "*evd_param* is NULL.")],
     see=["dat_evd_create", "dat_evd_resize"])

page(name="dat_evd_resize", brief="change the queue length of an event dispatcher", handle="evd_handle",
     params=[("evd_handle", "The EVD."), ("evd_min_qlen", "The new least queue length, 1 to max_evd_qlen.")],
     desc="dat_evd_resize() changes how many events the EVD holds, keeping the queued ones; the completion queue of a DTO EVD is resized too.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             arg(2, "*evd_min_qlen* is below 1 or above max_evd_qlen; libdaplcma also when the device refuses the size."),
             ("DAT_INVALID_STATE", "DAT_NO_SUBTYPE", "The new length is smaller than the events queued now, or than the threshold of a thread waiting on it; libdaplcma also when the CQ holds more completions than the new size."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "No memory for the new ring or CQ.")],
     see=["dat_evd_create", "dat_evd_query"])

page(name="dat_evd_post_se", brief="post a software event to an event dispatcher", handle="evd_handle",
     params=[("evd_handle", "An EVD created with DAT_EVD_SOFTWARE_FLAG."),
             ("event", "The event: event_number must be DAT_SOFTWARE_EVENT (0x10001); event_data.software_event_data.pointer is the consumer's value.")],
     desc="dat_evd_post_se() queues a copy of the event and wakes a waiter or notifies the CNO.  Safe from any thread.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             arg(1, "The EVD has no DAT_EVD_SOFTWARE_FLAG."),
             arg(2, "*event* is NULL or not a DAT_SOFTWARE_EVENT."),
             ("DAT_QUEUE_FULL", "DAT_NO_SUBTYPE", "The EVD's queue is full; the event was not posted.")],
     see=["dat_evd_dequeue", "dat_evd_wait"])

page(name="dat_evd_dequeue", brief="take one event from an event dispatcher without waiting", handle="evd_handle",
     params=[("evd_handle", "The EVD."), ("event", "Out: the event.")],
     desc="""dat_evd_dequeue() returns the oldest queued event, or the next completion
of the EVD's completion queue.  It never blocks and works on disabled and
unwaitable EVDs too.""",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             arg(2, "*event* is NULL."),
             ("DAT_QUEUE_EMPTY", "DAT_NO_SUBTYPE", "No event."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EVD_IN_USE", "Another thread is in dat_evd_wait() on this EVD.")],
     notes="""The hot path: one magic check, the EVD's own mutex, one ibv_poll_cq() into
the caller's DAT_EVENT.  A receive posted with DAT_COMPLETION_SUPPRESS_FLAG
that succeeds is consumed silently.""",
     see=["dat_evd_wait", "dat_evd_create"])

page(name="dat_evd_wait", brief="wait for events on an event dispatcher", handle="evd_handle",
     params=[("evd_handle", "The EVD."),
             ("timeout", "Microseconds; 0 does not block; DAT_TIMEOUT_INFINITE (~0U) waits for ever."),
             ("threshold", "How many events must be queued before the call returns: 1 to the EVD's queue length."),
             ("event", "Out: the oldest event."),
             ("n_more_events", "Out, may be NULL: how many events remain queued after the one returned.")],
     desc="""dat_evd_wait() returns once at least *threshold* events are queued and
dequeues the first.  It polls the completion queue, arms it, polls again and
only then blocks, in poll(2) on the completion channel and the EVD's
eventfd, which software, connection, CR and async events signal.  One
thread at a time may wait on an EVD.

With DAPL_EVD_WAIT_SPIN_US set to a number of microseconds (0 to 1000000;
read once per process), the waiter first checks those two descriptors
without blocking for up to that long, like rsocket's polling_time: an event
that comes meanwhile wakes it without the kernel's wake-up of a sleeping
thread, at the price of a CPU kept busy.  Unset or 0, the default: no
spinning.  The timeout is kept either way.

Over the libfabric provider, whose transports move data only when polled,
the IA's progress engine wakes when data arrives for one of the IA's
endpoints (over tcp;ofi_rxm and tcp: every arrival; over shm: RDMA writes
and atomics of the peer), and polls for the rest: again from its shortest
sleep (20 microseconds, doubling up to DAPL_OFI_POLL_MAX_US, 10000) once a
waiter blocks.  With DAPL_OFI_POLL_WAIT_US set, it polls at least that often
(microseconds; but not more often than about 1 % of a core allows) while
the waiter stays blocked.""",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             arg(3, "*threshold* is below 1 or above the queue length."),
             arg(4, "*event* is NULL."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EVD_IN_USE", "Another thread already waits on it."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EVD_UNWAITABLE", "The EVD is unwaitable (dat_evd_set_unwaitable()), also when that happens during the wait."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EVD_ASYNC", "This is an async EVD that overflowed: there is nowhere to report its own overflow, so it takes no more events and every wait says so.  (Any other EVD that overflows drops the event and reports DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's async EVD.)"),
             ("DAT_TIMEOUT_EXPIRED", "DAT_NO_SUBTYPE", "The timeout expired first; events queued meanwhile stay queued."),
             ("DAT_ABORT", "DAT_NO_SUBTYPE", "The EVD was destroyed by an abrupt dat_ia_close() while the thread waited.")],
     see=["dat_evd_dequeue", "dat_evd_set_unwaitable", "dat_evd_disable", "dat_cno_wait"])

for nm, br, what in [
        ("dat_evd_enable", "enable an event dispatcher", "Sets the EVD's state to enabled: it notifies its CNO again, at once if it holds events (those that came while it was disabled: dat_evd_modify_cno() between a disable and an enable moves the notifications to the new CNO).  Enabling an enabled EVD succeeds.  A direct waiter (dat_evd_wait()) is not affected."),
        ("dat_evd_disable", "disable an event dispatcher", "Sets the EVD's state to disabled: events are still queued but the EVD does not notify its CNO.  dat_evd_wait() and dat_evd_dequeue() work as on an enabled EVD, and a thread waiting in dat_evd_wait() stays there (dat_evd_enable(3DAT): disabling has no effect on direct waiters)."),
        ("dat_evd_set_unwaitable", "make waits on an event dispatcher fail", "Marks the EVD unwaitable: a thread in dat_evd_wait() is woken and returns DAT_INVALID_STATE (DAT_INVALID_STATE_EVD_UNWAITABLE), and so does every later wait until dat_evd_clear_unwaitable().  Events keep being queued."),
        ("dat_evd_clear_unwaitable", "make an event dispatcher waitable again", "Marks the EVD waitable again after dat_evd_set_unwaitable().")]:
    page(name=nm, brief=br, handle="evd_handle",
         params=[("evd_handle", "The EVD.")],
         desc=what,
         errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD.")],
         notes="The EVD state is a pair of bit pairs (DAT_EVD_STATE_ENABLED 0x01 / DISABLED 0x02, WAITABLE 0x04 / UNWAITABLE 0x08) reported by dat_evd_query(); the change wakes a waiting thread so that it re-checks it.",
         see=["dat_evd_wait", "dat_evd_query", "dat_evd_enable", "dat_evd_disable", "dat_evd_set_unwaitable", "dat_evd_clear_unwaitable"])

page(name="dat_evd_modify_cno", brief="attach an event dispatcher to another CNO", handle="evd_handle",
     params=[("evd_handle", "The EVD."), ("cno_handle", "A CNO of the same IA, or DAT_HANDLE_NULL to detach.")],
     desc="dat_evd_modify_cno() detaches the EVD from its CNO, if any, and attaches it to *cno_handle*.  A thread in dat_cno_wait() on the old CNO is woken.",
     errors=[OK, bad("DAT_INVALID_HANDLE1", "The provider: not a live EVD."),
             bad("DAT_INVALID_HANDLE_CNO", "*cno_handle* is not a live CNO of the EVD's IA.")],
     see=["dat_cno_wait", "dat_evd_create"])

# ---------------------------------------------------------------- PZ
page(name="dat_pz_create", brief="create a protection zone", handle="ia_handle",
     params=[("ia_handle", "The IA."), ("pz_handle", "Out: the new PZ.")],
     desc="A protection zone groups EPs and memory regions: an EP may only use LMRs and RMRs of its own PZ.  libdaplcma makes a verbs protection domain for each PZ.",
     errors=[OK, arg(2, "*pz_handle* is NULL."), NOMEM,
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_PROTECTION_DOMAIN", "libdaplcma: ibv_alloc_pd() failed.")],
     see=["dat_pz_free", "dat_pz_query", "dat_lmr_create", "dat_ep_create"])

page(name="dat_pz_query", brief="query a protection zone", handle="pz_handle",
     params=[("pz_handle", "The PZ."), ("pz_param_mask", MASK("pz", 2)), ("pz_param", "Out: DAT_PZ_FIELD_IA_HANDLE, the IA.")],
     desc="dat_pz_query() returns the IA of the PZ.",
     errors=[OK, bad("DAT_INVALID_HANDLE_PZ", "The provider: not a live PZ."),
             arg(2, "A bit outside DAT_PZ_FIELD_ALL."), arg(3, "*pz_param* is NULL.")],
     see=["dat_pz_create"])

page(name="dat_pz_free", brief="destroy a protection zone", handle="pz_handle",
     params=[("pz_handle", "The PZ.")],
     desc="dat_pz_free() destroys a PZ that no EP, LMR, RMR or SRQ uses.",
     errors=[OK, bad("DAT_INVALID_HANDLE_PZ", "The provider: not a live PZ."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_PZ_IN_USE", "An object still uses it; libdaplcma also when the device reports the protection domain busy."),
             ("DAT_INTERNAL_ERROR", "DAT_NO_SUBTYPE", "libdaplcma: ibv_dealloc_pd() failed otherwise.")],
     see=["dat_pz_create"])

# ---------------------------------------------------------------- EP
EP_HANDLES = [
    bad("DAT_INVALID_HANDLE_PZ", "*pz_handle* is not a live PZ of this IA."),
    bad("DAT_INVALID_HANDLE_EVD_RECV", "*recv_evd_handle* is neither DAT_HANDLE_NULL nor an EVD of this IA with DAT_EVD_DTO_FLAG."),
    bad("DAT_INVALID_HANDLE_EVD_REQUEST", "*request_evd_handle* is neither DAT_HANDLE_NULL nor an EVD of this IA with DAT_EVD_DTO_FLAG."),
    bad("DAT_INVALID_HANDLE_EVD_CONN", "*connect_evd_handle* is neither DAT_HANDLE_NULL nor an EVD of this IA with DAT_EVD_CONNECTION_FLAG."),
]
EP_PARAMS = [
    ("ia_handle", "The IA."),
    ("pz_handle", "The protection zone of the EP: its posts may only use LMRs of this PZ."),
    ("recv_evd_handle", "The EVD (DAT_EVD_DTO_FLAG) for receive completions, or DAT_HANDLE_NULL if the consumer does not want them."),
    ("request_evd_handle", "The EVD (DAT_EVD_DTO_FLAG) for send and RDMA completions, or DAT_HANDLE_NULL."),
    ("connect_evd_handle", "The EVD (DAT_EVD_CONNECTION_FLAG) for connection events, or DAT_HANDLE_NULL."),
]
EP_ATTR_TEXT = """The EP attributes, or NULL for the provider's defaults (those of
dat_ia_query()).  service_type must be DAT_SERVICE_TYPE_RC; max_message_size,
max_recv_dtos, max_request_dtos, max_recv_iov, max_request_iov,
max_rdma_read_in and _out, max_rdma_size must lie within the IA's limits;
recv_completion_flags and request_completion_flags are DAT_COMPLETION_* flags
(UNSIGNALLED in request_completion_flags allows unsignalled posts)."""

page(name="dat_ep_create", brief="create an endpoint", handle="ia_handle",
     params=EP_PARAMS + [("ep_attributes", EP_ATTR_TEXT), ("ep_handle", "Out: the new EP.")],
     desc="""dat_ep_create() makes an EP in state DAT_EP_STATE_UNCONNECTED, with a verbs
RC queue pair whose send and receive CQs are those of the request and
receive EVDs.  Receives may be posted right away; they are kept across the
connection.  Connect it with dat_ep_connect() or dat_cr_accept().""",
     errors=[OK] + EP_HANDLES + [
         arg(6, "An attribute is out of range or the service type is not RC; libdaplcma also when the device refuses the queue pair sizes."),
         ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "The attributes ask for a QoS other than DAT_QOS_BEST_EFFORT."),
         arg(7, "*ep_handle* is NULL."),
         NOMEM,
         ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_TEP", "libdaplcma: the device could not create the queue pair.")],
     notes="""Each EP owns two cookie rings (requests and receives) sized by
max_request_dtos and max_recv_dtos; a post takes a slot as the work
request id, so posting never allocates.  A DTO EVD may be shared by many
EPs.""",
     see=["dat_ep_free", "dat_ep_query", "dat_ep_modify", "dat_ep_connect", "dat_cr_accept", "dat_ep_create_with_srq", "dat_evd_create"])

page(name="dat_ep_create_with_srq", brief="create an endpoint that receives from a shared receive queue", handle="ia_handle",
     params=EP_PARAMS + [("srq_handle", "The SRQ the EP takes its receive buffers from."),
                         ("ep_attributes", EP_ATTR_TEXT), ("ep_handle", "Out: the new EP.")],
     desc="""Like dat_ep_create(), but the EP's receives come from *srq_handle*:
its queue pair is put on the SRQ (ibv_create_qp() with the ibv_srq), and
receives cannot be posted to the EP itself (dat_ep_post_recv() returns
DAT_INVALID_STATE).  *ep_attributes* may not be NULL; its max_recv_iov is
ignored (the SRQ's counts).  The EP keeps the SRQ until it is freed, across
dat_ep_reset().  A receive completion on the EP's recv EVD names the EP the
message arrived on.""",
     errors=[OK, ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "The IA reports max_srqs 0 (the device has no SRQs, or DAPL_CMA_DISABLE=srq).")] + EP_HANDLES + [
         bad("DAT_INVALID_HANDLE_SRQ", "*srq_handle* is not a live SRQ of this IA."),
         arg(2, "*pz_handle* is not the SRQ's PZ (srq_ep_pz_difference_supported is DAT_FALSE)."),
         arg(7, "*ep_attributes* is NULL or out of the IA's limits."),
         arg(8, "*ep_handle* is NULL."),
         ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_SRQ", "The SRQ has max_ep_per_srq EPs already, or libdaplcma's table of EPs on SRQs (1024 per IA) is full."),
         NOMEM],
     see=["dat_ep_create", "dat_srq_create"])

page(name="dat_ep_query", brief="query an endpoint", handle="ep_handle",
     params=[("ep_handle", "The EP."), ("ep_param_mask", MASK("ep", 2)),
             ("ep_param", "Out: the IA, state, local and remote address and port qualifier, PZ, the three EVDs, SRQ and the attributes.")],
     desc="""dat_ep_query() returns the EP's parameters.  The remote address and
qualifier are those of the peer while connected; the local qualifier is the
PSP's or RSP's on the passive side.  The address pointers point into the EP
and stay valid until it is reset or freed.""",
     errors=[OK, arg(2, "A bit outside DAT_EP_FIELD_ALL."), arg(3, "*ep_param* is NULL.")],
     see=["dat_ep_modify", "dat_ep_get_status"])

page(name="dat_ep_modify", brief="change the parameters of an endpoint", handle="ep_handle",
     params=[("ep_handle", "The EP."),
             ("ep_param_mask", "DAT_EP_FIELD_* bits of the parameters to change.  The IA, the state, the addresses and qualifiers and the SRQ cannot be changed (DAT_INVALID_ARG2)."),
             ("ep_param", "The new values.")],
     desc="""dat_ep_modify() changes the PZ, the EVDs or the attributes.  Most fields
may change only in DAT_EP_STATE_UNCONNECTED; the PZ also in RESERVED and
TENTATIVE_CONNECTION_PENDING; other fields in UNCONNECTED, RESERVED,
PASSIVE_CONNECTION_PENDING and TENTATIVE_CONNECTION_PENDING.  A change of the
PZ, an EVD or a queue size needs a new queue pair and is refused while
posts are outstanding.  The call is atomic: on error nothing changed, except
that if neither the new nor the old queue pair can be made the EP is left
in an UNCONFIGURED state with its old parameters.""",
     errors=[OK, arg(2, "A bit outside DAT_EP_FIELD_ALL, or a field that cannot be modified."),
             arg(3, "*ep_param* is NULL, or a new attribute is out of range."),
             bad("DAT_INVALID_HANDLE_PZ", "The new PZ is not a live PZ of this IA."),
             bad("DAT_INVALID_HANDLE_EVD_RECV", "The new receive EVD is not a DTO EVD of this IA."),
             bad("DAT_INVALID_HANDLE_EVD_REQUEST", "The new request EVD is not a DTO EVD of this IA."),
             bad("DAT_INVALID_HANDLE_EVD_CONN", "The new connect EVD is not a connection EVD of this IA."),
             ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "A QoS other than best effort."),
             EP_STATE,
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_NOTREADY", "The change needs a new queue pair and posts are outstanding."),
             NOMEM,
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_TEP", "libdaplcma: the new queue pair could not be created.")],
     see=["dat_ep_query", "dat_ep_create"])

CONNECT_COMMON = """The EP goes from DAT_EP_STATE_UNCONNECTED to
DAT_EP_STATE_ACTIVE_CONNECTION_PENDING; the result arrives on its connect
EVD: DAT_CONNECTION_EVENT_ESTABLISHED (state CONNECTED),
DAT_CONNECTION_EVENT_PEER_REJECTED, DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
DAT_CONNECTION_EVENT_UNREACHABLE or DAT_CONNECTION_EVENT_TIMED_OUT (state
DISCONNECTED).  If the call itself fails, no event is generated and the EP
stays UNCONNECTED."""

page(name="dat_ep_connect", brief="connect an endpoint to a remote service point", handle="ep_handle",
     params=[("ep_handle", "The EP, in DAT_EP_STATE_UNCONNECTED."),
             ("remote_ia_address", "The peer's address: a struct sockaddr of family AF_INET or AF_INET6 (the port is ignored)."),
             ("remote_conn_qual", "The peer's connection qualifier (its PSP or RSP): any 64-bit value; libdaplcma sends it in full in its connection request (see dat_psp_create(3))."),
             ("timeout", "Microseconds for the connection to be established, or DAT_TIMEOUT_INFINITE; not 0."),
             ("private_data_size", "Bytes of *private_data*: 0 to max_private_data_size of dat_ia_query() (40 with libdaplcma)."),
             ("private_data", "Data delivered to the peer's CR (dat_cr_query())."),
             ("quality_of_service", "DAT_QOS_BEST_EFFORT (0x00); HIGH_THROUGHPUT 0x01, LOW_LATENCY 0x02, ECONOMY 0x04, PREMIUM 0x08 are valid values that this provider does not support."),
             ("connect_flags", "DAT_CONNECT_DEFAULT_FLAG (0x00); DAT_CONNECT_MULTIPATH_FLAG (0x01) is not supported.")],
     desc="dat_ep_connect() asks the peer's service point for a connection.  " + CONNECT_COMMON,
     errors=[OK, arg(2, "*remote_ia_address* is NULL."),
             ("DAT_INVALID_ADDRESS", "DAT_INVALID_ADDRESS_UNSUPPORTED", "The address family is neither AF_INET nor AF_INET6, or rdma_cm cannot use it."),
             ("DAT_INVALID_ADDRESS", "DAT_INVALID_ADDRESS_UNREACHABLE", "libdaplcma: rdma_resolve_addr() failed at once for the address."),
             arg(4, "*timeout* is 0."),
             arg(5, "*private_data_size* is negative or above max_private_data_size (40)."),
             arg(6, "*private_data_size* is not 0 and *private_data* is NULL."),
             arg(7, "*quality_of_service* has an undefined bit."),
             arg(8, "*connect_flags* has an undefined bit."),
             ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "A QoS other than best effort, or DAT_CONNECT_MULTIPATH_FLAG."),
             EP_STATE, NOMEM],
     notes="""Connection management is rdma_cm's: address and route resolution, then
the connect, driven by the IA's CM thread; the timeout covers all of it.
The QPs' retry counts are set to the maximum and the local ACK timeout to
DAPL_CMA_ACK_TIMEOUT (default 19, about 2 s) so that slow links survive.

OFA dapl's tuning variables are honoured with OFA's meanings and units and
range-checked (a bad value: one warning on stderr, and the default):
DAPL_ACK_TIMER (local ACK timeout exponent, 0 to 31) and DAPL_ACK_RETRY
(transport retries, 0 to 7), which DAPL_CMA_ACK_TIMEOUT and
DAPL_CMA_RETRY_COUNT override when both are set; DAPL_RNR_RETRY (0 to 7,
default 7: forever) and DAPL_RNR_TIMER (min_rnr_timer code, 0 to 31; unset,
rdma_cm's 0); DAPL_MAX_INLINE (bytes of inline data asked of each QP, 0 to
4096, default 256); DAPL_CM_ARP_TIMEOUT_MS and DAPL_CM_ARP_RETRY_COUNT (address
resolution gives up after timeout times 1 + count; OFA's defaults 4000 and
15 for the one not set; with neither set, after half *timeout*, 0.5 to 5 s),
DAPL_CM_ROUTE_TIMEOUT_MS and DAPL_CM_ROUTE_RETRY_COUNT (the same for the
route); DAPL_CM_TOS (the IP type of service a connect asks rdma_cm for, 0 to
255: over RoCE both QPs' traffic class, whose DSCP picks the network's
priority for every packet of the connection; unset or 0, rdma_cm's default,
as in OFA dapl); DAPL_MAX_CM_RESPONSE_TIME (0 to 31) and DAPL_MAX_CM_RETRIES (0 to 15)
are checked but have no effect: upstream rdma_cm sets both in the kernel.
The DAT *timeout* still ends the attempt with DAT_CONNECTION_EVENT_TIMED_OUT
whatever the resolution times are.  The IB CM exchanges the retry counts in
its request and reply, so set them alike on both sides.

libdaplofi.so.1 (libfabric) connects in one of two ways, chosen at
dat_ia_open() from the libfabric provider's fi_info.  A provider named
alone in ia_params (e.g. "tcp 127.0.0.1") that offers connected endpoints
(FI_EP_MSG) with messages and RMA uses them: a PSP or RSP is a passive
endpoint listening at the IA address and port 1024 + (Q - 1024) mod 31744 of
its qualifier Q (one of 1024 to 32767: Q itself there, never one of the
kernel's ephemeral ports, where any outgoing socket of the host may sit;
PSP_any takes one of 24576 to 32767); the connect data carries the full 64-bit qualifier before the
private data, so a qualifier that only shares the port is rejected as
DAT_CONNECTION_EVENT_NON_PEER_REJECTED; fi_reject gives PEER_REJECTED, a
refused TCP connect NON_PEER_REJECTED, another failure UNREACHABLE.
Otherwise (e.g. "tcp;ofi_rxm ...", "shm ...") the endpoints are reliable
datagrams (FI_EP_RDM) and the provider runs a connection protocol of its own
over them, to the same listening address and with the same events.  Either
way a peer that dies gives DAT_CONNECTION_EVENT_BROKEN: at once where its
kernel closes the connection (MSG), else after DAPL_OFI_KEEPALIVE_TIMEOUT_MS
(10 s) without its keepalives.""",
     see=["dat_ep_dup_connect", "dat_ep_disconnect", "dat_psp_create", "dat_cr_accept", "dat_evd_wait"])

page(name="dat_ep_dup_connect", brief="connect an endpoint to the same peer as a connected one", handle="ep_handle",
     params=[("ep_handle", "The EP to connect, in DAT_EP_STATE_UNCONNECTED."),
             ("ep_dup_handle", "A connected EP of the same IA whose remote address and qualifier are used."),
             ("timeout", "Microseconds, or DAT_TIMEOUT_INFINITE; not 0."),
             ("private_data_size", "0 to max_private_data_size (40)."), ("private_data", "Data for the peer's CR."),
             ("quality_of_service", "DAT_QOS_BEST_EFFORT (0x00) only.")],
     desc="dat_ep_dup_connect() connects *ep_handle* to the peer address and connection qualifier that *ep_dup_handle* is connected to.  " + CONNECT_COMMON,
     errors=[OK, bad("DAT_INVALID_HANDLE_EP", "*ep_dup_handle* is not a live EP of the same IA."),
             arg(3, "*timeout* is 0."), arg(4, "*private_data_size* is negative or above max_private_data_size (40)."),
             arg(5, "*private_data_size* is not 0 and *private_data* is NULL."),
             arg(6, "*quality_of_service* has an undefined bit."),
             ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "A QoS other than best effort."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_*", "*ep_dup_handle* is not CONNECTED, or *ep_handle* is not UNCONNECTED; the subtype names the offending state."),
             ("DAT_INVALID_ADDRESS", "DAT_INVALID_ADDRESS_UNREACHABLE", "libdaplcma: the address could not be resolved."),
             NOMEM],
     see=["dat_ep_connect", "dat_ep_disconnect"])

page(name="dat_ep_disconnect", brief="disconnect an endpoint", handle="ep_handle",
     params=[("ep_handle", "The EP."),
             ("close_flags", """How:
= DAT_CLOSE_ABRUPT_FLAG (0x00): at once: the EP is DISCONNECTED when the call returns, DAT_CONNECTION_EVENT_DISCONNECTED is posted by the call itself and outstanding DTOs are flushed (completed with DAT_DTO_ERR_FLUSHED).
= DAT_CLOSE_GRACEFUL_FLAG (0x01): the EP goes to DISCONNECT_PENDING; the event comes when the transport has closed the connection.  libdaplofi first lets the EP's outstanding requests complete (at most 2 s), and the peer receives every send that completed; libdaplcma and libdaplscm first move the queue pair to SQD and send the disconnect request once its send queue drained (at most 2 s); a device that refuses SQD disconnects at once, and requests still outstanding then are flushed.""")],
     desc="""Allowed in CONNECTED; in ACTIVE_CONNECTION_PENDING and COMPLETION_PENDING
either flag aborts the connection attempt (abruptly); in DISCONNECT_PENDING a
graceful call has no effect and an abrupt one completes the disconnect; in
DISCONNECTED the call does nothing and succeeds.  Receives posted but not
consumed are flushed too.  On an EVD that takes both the EP's connection
events and its DTO completions, the completions that were complete when the
connection ended are dequeued before its DISCONNECTED (or BROKEN) event.""",
     errors=[OK, arg(2, "*close_flags* is neither flag."), EP_STATE,
             ("DAT_INVALID_STATE", "DAT_NO_SUBTYPE", "libdaplcma: a graceful disconnect of an EP that has no transport connection state; the EP is CONNECTED again.")],
     see=["dat_ep_connect", "dat_ep_reset", "dat_ep_free"])

POST_FLAGS_REQ = "Completion flags, any OR of:\n" + COMPLETION_FLAGS
TRIPLETS = ("Segments of local memory: DAT_LMR_TRIPLET {lmr_context, virtual_address, segment_length}.  Each must lie inside a live LMR of the EP's PZ; a zero-length segment is not checked.")

POST_ERRS = lambda flagarg, extra: [
    OK, arg(2, "*num_segments* is negative or above the EP's max iov for this operation (and 64)."),
    arg(3, "*num_segments* is not 0 and *local_iov* is NULL, or a segment is longer than 4 GiB or not inside its LMR."),
    ("DAT_PRIVILEGES_VIOLATION", "DAT_NO_SUBTYPE", "A segment's lmr_context names no live LMR of the IA, or (dat_ep_post_recv, dat_ep_post_rdma_read: the device writes there) its LMR lacks DAT_MEM_PRIV_LOCAL_WRITE_FLAG."),
    ("DAT_PROTECTION_VIOLATION", "DAT_NO_SUBTYPE", "A segment's LMR is in another PZ than the EP."),
    arg(flagarg, "An undefined completion flag, a flag the operation does not take, or DAT_COMPLETION_UNSIGNALLED_FLAG without the EP's permission."),
] + extra + [
    EP_STATE,
    ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "The EP's cookie ring is full: max_request_dtos (or max_recv_dtos) posts are outstanding."),
    ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_TEP", "libdaplcma: the queue pair's work queue is full."),
    ("DAT_INVALID_PARAMETER", "DAT_NO_SUBTYPE", "libdaplcma: ibv_post_send() or ibv_post_recv() refused the work request (EINVAL)."),
    ("DAT_INTERNAL_ERROR", "DAT_NO_SUBTYPE", "libdaplcma: any other failure of the verbs post."),
]

POST_NOTES = """The hot path: a magic and state check, the LMR triplets turned into a
verbs scatter list on the stack (LMRs found by lmr_context in a lock-free
table), a slot of the EP's cookie ring as the wr_id, one ibv_post_send() or
ibv_post_recv(), under the EP's own mutex only; no allocation and no system
call of our own.  Unsignalled posts still get a transport completion every
half ring so that slots are retired; the consumer never sees those."""

page(name="dat_ep_post_send", brief="post a send", handle="ep_handle",
     params=[("ep_handle", "The EP, connected."), ("num_segments", "Number of entries of *local_iov* (0 for a zero-length message)."),
             ("local_iov", TRIPLETS), ("user_cookie", "Returned in the completion event (DAT_DTO_COMPLETION_EVENT_DATA.user_cookie)."),
             ("completion_flags", POST_FLAGS_REQ)],
     desc="""dat_ep_post_send() sends the gathered segments as one message to the
peer, which consumes one of its posted receives.  Allowed in CONNECTED; in
DISCONNECTED the post is accepted and completes at once with
DAT_DTO_ERR_FLUSHED.  The buffers may not be touched until the completion.""",
     errors=POST_ERRS(5, []), notes=POST_NOTES,
     see=["dat_ep_post_recv", "dat_ep_post_rdma_write", "dat_evd_dequeue", "dat_lmr_create"])

page(name="dat_ep_post_recv", brief="post a receive buffer", handle="ep_handle",
     params=[("ep_handle", "The EP, in any state with a queue pair (including UNCONNECTED, before the connection)."),
             ("num_segments", "Number of entries of *local_iov*."), ("local_iov", TRIPLETS),
             ("user_cookie", "Returned in the completion event."),
             ("completion_flags", """DAT_COMPLETION_DEFAULT_FLAG (0x00), DAT_COMPLETION_SUPPRESS_FLAG (0x01: no event for a successful receive), DAT_COMPLETION_UNSIGNALLED_FLAG (0x04, with the EP's permission); DAT_COMPLETION_SOLICITED_WAIT_FLAG (0x02) and DAT_COMPLETION_EVD_THRESHOLD_FLAG (0x10) are accepted and have no effect; DAT_COMPLETION_BARRIER_FENCE_FLAG is refused.""")],
     desc="""dat_ep_post_recv() adds a buffer for one incoming message.  The completion
event reports the length received.  Receives posted before the connection
are kept.""",
     errors=POST_ERRS(5, []), notes=POST_NOTES,
     see=["dat_ep_post_send", "dat_evd_wait"])

RDMA_REMOTE = "The remote buffer: DAT_RMR_TRIPLET {rmr_context, target_address, segment_length}, from the peer's LMR or RMR."
page(name="dat_ep_post_rdma_read", brief="read from remote memory", handle="ep_handle",
     params=[("ep_handle", "The EP, connected."), ("num_segments", "Entries of *local_iov*."),
             ("local_iov", TRIPLETS + "  They are filled in order."),
             ("user_cookie", "Returned in the completion event."), ("remote_iov", RDMA_REMOTE),
             ("completion_flags", POST_FLAGS_REQ)],
     desc="""dat_ep_post_rdma_read() copies the remote buffer into the local segments
without involving the peer's CPU.  The number of reads in flight is bounded
by the EP's max_rdma_read_out.""",
     errors=POST_ERRS(6, [arg(5, "*remote_iov* is NULL."),
                          ("DAT_LENGTH_ERROR", "DAT_NO_SUBTYPE", "The local segments hold less than the remote buffer's length.  (If they hold more, the read is cut to the remote length.)")]),
     notes=POST_NOTES,
     see=["dat_ep_post_rdma_write", "dat_lmr_sync_rdma_read"])

page(name="dat_ep_post_rdma_write", brief="write to remote memory", handle="ep_handle",
     params=[("ep_handle", "The EP, connected."), ("num_segments", "Entries of *local_iov*."),
             ("local_iov", TRIPLETS), ("user_cookie", "Returned in the completion event."),
             ("remote_iov", RDMA_REMOTE), ("completion_flags", POST_FLAGS_REQ)],
     desc="dat_ep_post_rdma_write() copies the gathered local segments into the remote buffer; the peer gets no event.",
     errors=POST_ERRS(6, [arg(5, "*remote_iov* is NULL."),
                          ("DAT_LENGTH_ERROR", "DAT_NO_SUBTYPE", "The local segments hold more than the remote buffer's length.")]),
     notes=POST_NOTES,
     see=["dat_ep_post_rdma_read", "dat_lmr_sync_rdma_write"])

page(name="dat_ep_get_status", brief="get the state of an endpoint and whether its queues are idle", handle="ep_handle",
     params=[("ep_handle", "The EP."),
             ("ep_state", "Out, may be NULL: the DAT_EP_STATE (UNCONNECTED 0, RESERVED 2, PASSIVE_CONNECTION_PENDING 4, ACTIVE_CONNECTION_PENDING 6, TENTATIVE_CONNECTION_PENDING 7, CONNECTED 9, DISCONNECT_PENDING 10, DISCONNECTED 11, COMPLETION_PENDING 12, or an UNCONFIGURED_* state 1, 3, 5, 8)."),
             ("recv_idle", "Out, may be NULL: DAT_TRUE if no receive is outstanding."),
             ("request_idle", "Out, may be NULL: DAT_TRUE if no send or RDMA is outstanding.")],
     desc="dat_ep_get_status() is a cheap snapshot: the state and whether posts are outstanding, from the EP's cookie rings.",
     errors=[OK], see=["dat_ep_query"])

page(name="dat_ep_free", brief="destroy an endpoint", handle="ep_handle",
     params=[("ep_handle", "The EP.")],
     desc="""dat_ep_free() disconnects the EP abruptly if needed (no event is
generated), destroys its queue pair and frees it.  Completions of its posts
still in a shared CQ are dropped.""",
     errors=[OK, ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_*", "The EP is RESERVED (free its RSP first), PASSIVE_CONNECTION_PENDING or TENTATIVE_CONNECTION_PENDING (reject its CR first).")],
     see=["dat_ep_create", "dat_ep_disconnect", "dat_rsp_free"])

page(name="dat_ep_reset", brief="return a disconnected endpoint to the unconnected state", handle="ep_handle",
     params=[("ep_handle", "The EP.")],
     desc="""dat_ep_reset() takes a DISCONNECTED EP back to UNCONNECTED with a fresh
queue pair, so that it can connect again.  Work requests of the old
connection are gone.  On an UNCONNECTED EP it does nothing.""",
     errors=[OK, EP_STATE, NOMEM,
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_TEP", "libdaplcma: the new queue pair could not be created; the EP is UNCONFIGURED_UNCONNECTED and dat_ep_modify() may configure it again.")],
     see=["dat_ep_disconnect", "dat_ep_connect"])

page(name="dat_ep_recv_query", brief="query the receive buffers of an endpoint", handle="ep_handle",
     params=[("ep_handle", "The EP."), ("nbufs_allocated", "Out, may be NULL: receives posted and not yet completed."),
             ("bufs_alloc_span", "Out, may be NULL: the bytes those receives span.")],
     desc="""dat_ep_recv_query() reports the EP's outstanding receives; ep_recv_info_supported is DAT_TRUE in dat_ia_query().
For an EP created with dat_ep_create_with_srq() both are DAT_VALUE_UNKNOWN:
the transport does not say which SRQ buffers an EP holds.""",
     errors=[OK], see=["dat_ep_post_recv", "dat_ep_set_watermark"])

page(name="dat_ep_set_watermark", brief="set the high watermarks of an endpoint's receive queue", handle="ep_handle",
     params=[("ep_handle", "The EP."),
             ("soft_high_watermark", "Outstanding receives above which an asynchronous event is wanted, or DAT_WATERMARK_INFINITE (~0)."),
             ("hard_high_watermark", "Receives above which the connection is broken, or DAT_WATERMARK_INFINITE.")],
     desc="""Watermarks are not supported (srq_watermarks_supported is 0): setting both to
DAT_WATERMARK_INFINITE, the default, succeeds and does nothing; any other
value is DAT_MODEL_NOT_SUPPORTED, also on an EP of an SRQ (verbs has no high
watermark; the SRQ's low watermark is dat_srq_set_lw()).""",
     errors=[OK, arg(2, "*soft_high_watermark* is negative and not DAT_WATERMARK_INFINITE."),
             arg(3, "*hard_high_watermark* is negative and not DAT_WATERMARK_INFINITE."),
             ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "Any finite watermark.")],
     see=["dat_ep_recv_query", "dat_srq_set_lw"])

# ---------------------------------------------------------------- LMR
page(name="dat_lmr_create", brief="register local memory", handle="ia_handle",
     params=[("ia_handle", "The IA."),
             ("mem_type", """What *region_description* describes:
= DAT_MEM_TYPE_VIRTUAL (0x00): region_description.for_va, a virtual address of this process.
= DAT_MEM_TYPE_LMR (0x01): region_description.for_lmr_handle, an LMR of this IA whose registration is shared (same memory, new handle and contexts).
= DAT_MEM_TYPE_SHARED_VIRTUAL (0x02), DAT_MEM_TYPE_SO_VIRTUAL (0x03): not supported."""),
             ("region_description", "The memory, as *mem_type* says."),
             ("length", "Bytes to register: not 0, at most max_lmr_block_size of dat_ia_query() where that is set."),
             ("pz_handle", "The PZ the LMR belongs to."),
             ("privileges", """Access rights, any OR of:
= DAT_MEM_PRIV_NONE_FLAG (0x00), DAT_MEM_PRIV_LOCAL_READ_FLAG (0x01), DAT_MEM_PRIV_REMOTE_READ_FLAG (0x02): local reads are always allowed by verbs.
= DAT_MEM_PRIV_LOCAL_WRITE_FLAG (0x10), DAT_MEM_PRIV_REMOTE_WRITE_FLAG (0x20): receives and RDMA reads into it need LOCAL_WRITE.
= DAT_MEM_PRIV_ALL_FLAG (0x33): everything.
= DAT_IB_MEM_PRIV_REMOTE_ATOMIC (0x40, <dat/dat_ib_extensions.h>): the target of remote atomics (dat_ib_post_fetch_and_add(3)); it gets an rmr_context like the remote bits.  Ignored on a device without atomics."""),
             ("lmr_handle", "Out: the new LMR."),
             ("lmr_context", "Out, may be NULL: the local key used in DAT_LMR_TRIPLETs."),
             ("rmr_context", "Out, may be NULL: the remote key a peer uses in a DAT_RMR_TRIPLET (meaningful with a REMOTE privilege)."),
             ("registered_length", "Out, may be NULL: the length actually registered."),
             ("registered_address", "Out, may be NULL: the address actually registered.")],
     desc="""dat_lmr_create() registers memory with the device (ibv_reg_mr() with the
access rights that *privileges* translate to) so that posts can use it.""",
     errors=[OK, ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "*mem_type* is DAT_MEM_TYPE_SHARED_VIRTUAL or DAT_MEM_TYPE_SO_VIRTUAL."),
             arg(2, "*mem_type* is no DAT_MEM_TYPE value."),
             bad("DAT_INVALID_HANDLE_PZ", "*pz_handle* is not a live PZ of this IA."),
             arg(6, "*privileges* has a bit outside DAT_MEM_PRIV_ALL_FLAG and DAT_IB_MEM_PRIV_REMOTE_ATOMIC."),
             arg(7, "*lmr_handle* is NULL."),
             arg(3, "DAT_MEM_TYPE_VIRTUAL with a NULL address; libdaplcma also when the device refuses the range (EINVAL)."),
             arg(4, "*length* is 0 or above max_lmr_block_size."),
             bad("DAT_INVALID_HANDLE_LMR", "DAT_MEM_TYPE_LMR and for_lmr_handle is not a live LMR of this IA."),
             ("DAT_PRIVILEGES_VIOLATION", "DAT_NO_SUBTYPE", "DAT_MEM_TYPE_LMR and *privileges* has a right that for_lmr_handle's LMR was not created with (in its PZ or another): a shared LMR never has more rights than its original."),
             ("DAT_PRIVILEGES_VIOLATION", "DAT_NO_SUBTYPE", "libdaplcma: the memory cannot be registered with these rights (EACCES, EFAULT), e.g. remote write on read-only pages."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY_REGION", "libdaplcma: the device or the locked-memory limit (ulimit -l) refused the registration."),
             NOMEM],
     notes="""LMRs are found on the post path by lmr_context in a per-IA lock-free hash
table; a segment whose context names no LMR is DAT_PRIVILEGES_VIOLATION at
post time.  With RDMAV_FORK_SAFE or IBV_FORK_SAFE set, the provider calls
ibv_fork_init() before the first registration, so that a forked child cannot
corrupt registered memory.""",
     see=["dat_lmr_free", "dat_lmr_query", "dat_ep_post_send", "dat_lmr_sync_rdma_read"])

page(name="dat_lmr_query", brief="query a local memory region", handle="lmr_handle",
     params=[("lmr_handle", "The LMR."), ("lmr_param_mask", MASK("lmr", 2)),
             ("lmr_param", "Out: IA, mem_type, region description, length, PZ, privileges, lmr_context, rmr_context, registered size and address.")],
     desc="dat_lmr_query() returns the LMR's parameters as created.",
     errors=[OK, bad("DAT_INVALID_HANDLE_LMR", "The provider: not a live LMR."), arg(2, "A bit outside DAT_LMR_FIELD_ALL."), arg(3, "*lmr_param* is NULL.")],
     see=["dat_lmr_create"])

page(name="dat_lmr_free", brief="deregister a local memory region", handle="lmr_handle",
     params=[("lmr_handle", "The LMR.")],
     desc="dat_lmr_free() deregisters the memory; no byte lands in it after a successful return.  DTOs posted and not yet complete that use it: over verbs (libdaplcma) the device decides, it either refuses the deregistration (DAT_INVALID_STATE) or lets it go and completes those DTOs with an error status (a protection error, or flushed), the memory untouched; over libfabric (libdaplofi), whose providers mostly need no registration of local buffers, the LMR is in use until they complete (DAT_INVALID_STATE).  New posts referring to its lmr_context get DAT_PRIVILEGES_VIOLATION.",
     errors=[OK, bad("DAT_INVALID_HANDLE_LMR", "The provider: not a live LMR."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_LMR_IN_USE", "Another LMR shares its registration (DAT_MEM_TYPE_LMR) or an RMR is bound to it; libdaplcma also when the device reports it busy; libdaplofi also while a DTO posted and not yet complete names it."),
             ("DAT_INTERNAL_ERROR", "DAT_NO_SUBTYPE", "libdaplcma: ibv_dereg_mr() failed otherwise.")],
     see=["dat_lmr_create"])

for nm, dirn in [("dat_lmr_sync_rdma_read", "read by a peer's RDMA read"), ("dat_lmr_sync_rdma_write", "written by a peer's RDMA write")]:
    page(name=nm, brief="make local memory coherent for memory %s" % dirn, handle="ia_handle",
         params=[("ia_handle", "The IA."),
                 ("local_segments", "DAT_LMR_TRIPLETs {lmr_context, virtual_address, segment_length}, each inside a live LMR of the IA."),
                 ("num_segments", "Entries of *local_segments*.")],
         desc="""Where the platform's DMA is not cache coherent, a consumer must call this
for memory %s before (read) or after (write) the transfer.  Here DMA is
coherent: dat_ia_query() reports lmr_sync_req DAT_FALSE, and the call checks
the segments and issues a full memory barrier.""" % dirn,
         errors=[OK, arg(2, "*num_segments* is not 0 and *local_segments* is NULL, or a segment names no LMR of the IA or lies outside it.")],
         see=["dat_lmr_sync_rdma_read", "dat_lmr_sync_rdma_write", "dat_lmr_create"])

# ---------------------------------------------------------------- RMR
RMR_NOTE = """libdaplcma.so.1 makes each RMR a verbs memory window (ibv_alloc_mw()):
type 1 where the device has type 1 windows (soft-RoCE has 1 and 2B), else
type 2; DAPL_CMA_MW_TYPE=2 asks for type 2 where the device has both.  A
type 1 window belongs to the protection domain, as an RMR belongs to its PZ:
its rmr_context serves every connection of an EP of that PZ and outlives the
EP it was bound through; a type 2 window is tied to the QP it was bound
through, so before that EP's QP is destroyed the provider replaces the window
by a fresh, unbound one (the RMR stays, its context is revoked).
A type 2 window is bound with an IBV_WR_BIND_MW work request and a new key
(ibv_inc_rkey()); before it is bound again, or to unbind it, the provider
first posts an IBV_WR_LOCAL_INV of its current key, because the device
refuses to bind a window that is not free and refuses a zero-length bind.
A type 1 window is bound with ibv_bind_mw().  LMRs are registered with
IBV_ACCESS_MW_BIND where the device has memory windows, so any LMR of the
RMR's PZ can carry one.

libdaplofi.so.1 (libfabric) has no memory windows to use and emulates them
with application keys: dat_rmr_bind() returns the window's new rmr_context at
once (a fresh key of the IA, never reused while it is open); the bind waits
until every earlier request of the EP completed (the DAT fence), then
registers the window's range of the LMR's memory under that key with the
window's remote privileges (fi_mr_reg()) and deregisters the previous key;
the bind completion comes on the request EVD in posting order.  The key
serves every connection of an EP of the window's PZ, and outlives the EP it
was bound through; a connection of another PZ's EP is refused it.  A
rebind, an unbind and dat_rmr_free() tell every peer that was given the old
key to forget it and complete (or return) once they confirmed, so a peer's
next RDMA with it fails with DAT_DTO_ERR_REMOTE_ACCESS and breaks the
connection, as on verbs.  What the emulation does not give (dat_ia_query(3)
reports it as the provider-specific attribute DAPL_RMR_EMULATION): an RDMA
the target already accepted when the window is revoked still completes,
where hardware revokes a window at once; and libfabric cannot refuse a bind
of memory the process may not write (nothing is pinned over TCP), so such a
bind completes successfully."""
RMR_BAD = bad("DAT_INVALID_HANDLE_RMR", "The provider: not a live RMR (never created, freed, or another type).")
page(name="dat_rmr_create", brief="create a remote memory region (memory window)", handle="pz_handle",
     params=[("pz_handle", "The PZ of the window."), ("rmr_handle", "Out: the new RMR, unbound.")],
     desc="""An RMR is a window onto part of an LMR of the same PZ that dat_rmr_bind()
opens to a peer with an rmr_context of its own and can move or close again
at any time, without registering memory.  A new RMR is unbound.""",
     errors=[OK, ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "The IA reports max_rmrs 0: the device has no memory windows, or DAPL_CMA_DISABLE=mw."),
             arg(2, "*rmr_handle* is NULL."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY_REGION", "The device has no window left (max_rmrs)."), NOMEM],
     notes=RMR_NOTE, see=["dat_rmr_bind", "dat_rmr_free", "dat_rmr_query", "dat_lmr_create"])

page(name="dat_rmr_query", brief="query a remote memory region", handle="rmr_handle",
     params=[("rmr_handle", "The RMR."), ("rmr_param_mask", MASK("rmr", 2)), ("rmr_param", "Out: IA, PZ, LMR triplet, privileges, rmr_context.")],
     desc="""dat_rmr_query() returns the RMR's parameters: its IA and PZ, and the
binding made by the last dat_rmr_bind() that was posted on a connected EP
(the LMR triplet, the remote privileges and the rmr_context it returned).
An unbound RMR reports a zero triplet, privileges and context.""",
     errors=[OK, RMR_BAD, arg(2, "*rmr_param_mask* has a bit outside DAT_RMR_FIELD_ALL."), arg(3, "*rmr_param* is NULL.")],
     notes=RMR_NOTE, see=["dat_rmr_create", "dat_rmr_bind"])

page(name="dat_rmr_bind", brief="bind a memory window to local memory", handle="rmr_handle",
     params=[("rmr_handle", "The RMR."),
             ("lmr_triplet", "The part of an LMR to expose: {lmr_context, virtual_address, segment_length}; segment_length 0 unbinds (the other fields are then ignored)."),
             ("mem_priv", "DAT_MEM_PRIV_REMOTE_READ_FLAG (0x02) and/or DAT_MEM_PRIV_REMOTE_WRITE_FLAG (0x20); the local bits of DAT_MEM_PRIV_ALL_FLAG (0x33) are accepted and ignored."),
             ("ep_handle", "A CONNECTED (or DISCONNECTED) EP of the RMR's PZ whose request queue carries the bind."),
             ("user_cookie", "Returned in the DAT_RMR_BIND_COMPLETION_EVENT."),
             ("completion_flags", "DAT_COMPLETION_DEFAULT_FLAG, SUPPRESS (0x01), UNSIGNALLED (0x04, only if the EP's request_completion_flags have it), BARRIER_FENCE (0x08)."),
             ("rmr_context", "Out: the new remote key (0 for an unbind).")],
     desc="""dat_rmr_bind() posts the bind on the EP's send queue and returns the
window's new rmr_context at once.  Its completion is a
DAT_RMR_BIND_COMPLETION_EVENT on the EP's request EVD with *user_cookie*
and the status (none for a successful bind posted with SUPPRESS).  From the
moment the bind completes, any RDMA operation through the window's previous
rmr_context fails at this side: the initiator sees DAT_DTO_ERR_REMOTE_ACCESS
and its connection breaks.  A bind with segment_length 0 unbinds the
window; an unbind of an unbound window completes at once.

The automatic fence: no Send, RDMA Read, RDMA Write or bind posted on the EP
after a bind starts before that bind has completed, so a peer can never use
an rmr_context that arrived in a later Send too early.  libdaplcma puts
IBV_SEND_FENCE on the first work request posted on the EP after a bind (a
flag of the EP, no software queue), and on the bind itself when
BARRIER_FENCE is asked.  dat_ia_query() counts the fences applied this way
in the vendor attribute DAPL_RMR_FENCES of the IA.

On a DISCONNECTED EP the bind is accepted and comes back at once flushed
(DAT_DTO_ERR_FLUSHED) on the request EVD; the window keeps its binding.  A
bind that fails after the call returned breaks the connection: the EP goes
DISCONNECTED and DAT_CONNECTION_EVENT_BROKEN is posted to its connection
EVD.  While a window is bound to an LMR, dat_lmr_free() of that LMR returns
DAT_INVALID_STATE.""",
     errors=[OK, RMR_BAD, bad("DAT_INVALID_HANDLE_EP", "*ep_handle* is not a live EP."),
             arg(2, "*lmr_triplet* is NULL, names no LMR of the IA, or lies outside its LMR."),
             arg(3, "*mem_priv* has a bit outside DAT_MEM_PRIV_ALL_FLAG."),
             arg(6, "*completion_flags* has a flag other than SUPPRESS, UNSIGNALLED and BARRIER_FENCE, or UNSIGNALLED while the EP's request_completion_flags lack it."),
             arg(7, "*rmr_context* is NULL."),
             ("DAT_PROTECTION_VIOLATION", "DAT_NO_SUBTYPE", "The RMR, the EP and the LMR are not all in one PZ."),
             ("DAT_PRIVILEGES_VIOLATION", "DAT_NO_SUBTYPE", "Remote read asked of an LMR without DAT_MEM_PRIV_LOCAL_READ_FLAG, or remote write of one without DAT_MEM_PRIV_LOCAL_WRITE_FLAG."),
             EP_STATE,
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "The EP's request queue is full (max_request_dtos posts outstanding; a rebind of a type 2 window takes two).")],
     notes=RMR_NOTE, see=["dat_rmr_create", "dat_rmr_query", "dat_rmr_free", "dat_ep_post_rdma_write", "dat_ia_query"])

page(name="dat_rmr_free", brief="destroy a remote memory region", handle="rmr_handle",
     params=[("rmr_handle", "The RMR, bound or not.")],
     desc="""dat_rmr_free() destroys the window; a bound window is unbound first (the
device does it), so its rmr_context fails at this side from then on: the
initiator of an RDMA operation through it sees DAT_DTO_ERR_REMOTE_ACCESS and
its connection breaks.  The LMR it was bound to can be freed again.""",
     errors=[OK, RMR_BAD],
     notes=RMR_NOTE, see=["dat_rmr_create", "dat_rmr_bind"])

# ---------------------------------------------------------------- PSP, RSP
PSP_ERRS = [bad("DAT_INVALID_HANDLE_EVD_CR", "*evd_handle* is not an EVD of this IA with DAT_EVD_CR_FLAG."),
            arg(4, "*psp_flags* is neither DAT_PSP_CONSUMER_FLAG nor DAT_PSP_PROVIDER_FLAG."),
            arg(5, "*psp_handle* is NULL.")]
PSP_FLAGS = """= DAT_PSP_CONSUMER_FLAG (0x00): the consumer accepts each request with an EP of its own.
= DAT_PSP_PROVIDER_FLAG (0x01): the provider creates an EP for each request (see DESCRIPTION)."""
PROVIDER_EP = """With DAT_PSP_PROVIDER_FLAG the provider creates an EP for each request, as
DAT 1.2 specifies and OFA dapl does: default attributes and DAT_HANDLE_NULL
for the protection zone and every EVD, so it has no queue pair yet and is in
DAT_EP_STATE_UNCONFIGURED_TENTATIVE.  dat_cr_query() returns it as
local_ep_handle.  The consumer gives it a PZ and EVDs (and other attributes)
with dat_ep_modify(), which creates its queue pair
(DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING; receives may be posted then),
and accepts with dat_cr_accept(cr, DAT_HANDLE_NULL or that EP, ...); the
accepted EP is the consumer's like any other, freed with dat_ep_free().
dat_cr_reject() (or dat_cr_handoff()) frees it: its handle is stale at once.
dat_ep_free() refuses it while its CR is pending."""
QUAL_NOTE = """Connection qualifiers are 64 bits.  libdaplcma listens on the rdma_cm port
given by the qualifier's low 16 bits (0xffff where those are 0), as OFA dapl
folds them, and its connection request starts with a 16-byte header (magic,
private data length, the full qualifier) before the consumer's private data,
so a service point takes only requests for its own qualifier: service points
of one IA whose qualifiers share a port are all served, each with its own
requests, and a request for a qualifier nobody has is rejected
(DAT_CONNECTION_EVENT_NON_PEER_REJECTED at the requester).  The header costs
16 of rdma_cm's 56 bytes (max_private_data_size 40), and there is no wire
compatibility with OFA dapl peers."""
page(name="dat_psp_create", brief="create a public service point", handle="ia_handle",
     params=[("ia_handle", "The IA."), ("conn_qual", "The connection qualifier to listen on: any 64-bit value but 0."),
             ("evd_handle", "The EVD (DAT_EVD_CR_FLAG) that receives DAT_CONNECTION_REQUEST_EVENTs."),
             ("psp_flags", PSP_FLAGS), ("psp_handle", "Out: the new PSP.")],
     desc="""A PSP listens on the IA's address and *conn_qual*; each incoming request
becomes a CR announced on *evd_handle*, to be accepted with
dat_cr_accept() or refused with dat_cr_reject().

""" + PROVIDER_EP,
     errors=[OK] + PSP_ERRS + [arg(2, "*conn_qual* is 0 (use dat_psp_create_any())."),
             ("DAT_CONN_QUAL_IN_USE", "DAT_NO_SUBTYPE", "Another service point of this IA has the qualifier, or another process listens on its rdma_cm port."), NOMEM],
     notes=QUAL_NOTE,
     see=["dat_psp_create_any", "dat_psp_free", "dat_psp_query", "dat_cr_accept", "dat_rsp_create"])

page(name="dat_psp_create_any", brief="create a public service point on a free connection qualifier", handle="ia_handle",
     params=[("ia_handle", "The IA."), ("conn_qual", "Out: the qualifier chosen."),
             ("evd_handle", "The CR EVD."), ("psp_flags", PSP_FLAGS), ("psp_handle", "Out: the new PSP.")],
     desc="Like dat_psp_create(), but the port is picked by rdma_cm and returned in *conn_qual*.  " + PROVIDER_EP,
     errors=[OK] + PSP_ERRS + [arg(2, "*conn_qual* is NULL."),
             ("DAT_CONN_QUAL_UNAVAILABLE", "DAT_NO_SUBTYPE", "Never returned: rdma_cm assigns a free port or the call fails with DAT_INSUFFICIENT_RESOURCES."),
             NOMEM],
     see=["dat_psp_create", "dat_psp_query"])

page(name="dat_psp_query", brief="query a public service point", handle="psp_handle",
     params=[("psp_handle", "The PSP."), ("psp_param_mask", MASK("psp", 2)),
             ("psp_param", "Out: DAT_PSP_FIELD_IA_HANDLE, DAT_PSP_FIELD_CONN_QUAL, DAT_PSP_FIELD_EVD_HANDLE, DAT_PSP_FIELD_PSP_FLAGS (0x08).")],
     desc="dat_psp_query() returns the PSP's parameters.",
     errors=[OK, bad("DAT_INVALID_HANDLE_PSP", "The provider: not a live PSP."), arg(2, "A bit outside DAT_PSP_FIELD_ALL."), arg(3, "*psp_param* is NULL.")],
     see=["dat_psp_create"])

page(name="dat_psp_free", brief="destroy a public service point", handle="psp_handle",
     params=[("psp_handle", "The PSP.")],
     desc="""dat_psp_free() stops listening.  CRs the PSP already produced stay valid and can still be accepted or rejected.
A request that arrives while the PSP is being freed, or that reached it but
had no CR yet, is rejected by the provider as if nobody listened: the
requester gets DAT_CONNECTION_EVENT_NON_PEER_REJECTED (only dat_cr_reject()
gives PEER_REJECTED), on every provider.""",
     errors=[OK, bad("DAT_INVALID_HANDLE_PSP", "The provider: not a live PSP.")],
     see=["dat_psp_create"])

page(name="dat_rsp_create", brief="create a reserved service point for one endpoint", handle="ia_handle",
     params=[("ia_handle", "The IA."), ("conn_qual", "Any 64-bit value but 0 (see dat_psp_create(3))."),
             ("ep_handle", "An UNCONNECTED EP of this IA that the request will connect; DAT_HANDLE_NULL (a provider-created EP) is not supported for an RSP (a PSP with DAT_PSP_PROVIDER_FLAG makes them)."),
             ("evd_handle", "The CR EVD."), ("rsp_handle", "Out: the new RSP.")],
     desc="""An RSP listens like a PSP but for exactly one connection, on the given EP:
the EP goes to DAT_EP_STATE_RESERVED, and to PASSIVE_CONNECTION_PENDING when
a request arrives.  dat_cr_accept() then takes DAT_HANDLE_NULL or that EP.""",
     errors=[OK, ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "*ep_handle* is DAT_HANDLE_NULL."),
             bad("DAT_INVALID_HANDLE_EP", "*ep_handle* is not a live EP of this IA."),
             bad("DAT_INVALID_HANDLE_EVD_CR", "*evd_handle* is not a CR EVD of this IA."),
             arg(2, "*conn_qual* is 0."), arg(5, "*rsp_handle* is NULL."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_*", "The EP is not UNCONNECTED."),
             ("DAT_CONN_QUAL_IN_USE", "DAT_NO_SUBTYPE", "The qualifier is in use."), NOMEM],
     see=["dat_rsp_free", "dat_rsp_query", "dat_psp_create", "dat_cr_accept"])

page(name="dat_rsp_query", brief="query a reserved service point", handle="rsp_handle",
     params=[("rsp_handle", "The RSP."), ("rsp_param_mask", MASK("rsp", 2)),
             ("rsp_param", "Out: IA, conn_qual, EVD and EP.")],
     desc="dat_rsp_query() returns the RSP's parameters.",
     errors=[OK, bad("DAT_INVALID_HANDLE_RSP", "The provider: not a live RSP."), arg(2, "A bit outside DAT_RSP_FIELD_ALL."), arg(3, "*rsp_param* is NULL.")],
     see=["dat_rsp_create"])

page(name="dat_rsp_free", brief="destroy a reserved service point", handle="rsp_handle",
     params=[("rsp_handle", "The RSP.")],
     desc="dat_rsp_free() stops listening; a RESERVED EP returns to UNCONNECTED.  An EP already connecting through it is not affected.",
     errors=[OK, bad("DAT_INVALID_HANDLE_RSP", "The provider: not a live RSP.")],
     see=["dat_rsp_create", "dat_ep_free"])

# ---------------------------------------------------------------- CR
page(name="dat_cr_query", brief="query a connection request", handle="cr_handle",
     params=[("cr_handle", "The CR from a DAT_CONNECTION_REQUEST_EVENT."), ("cr_param_mask", MASK("cr", 2)),
             ("cr_param", "Out: the remote address and port qualifier, the private data size and pointer, and the local EP (the RSP's, or the one a DAT_PSP_PROVIDER_FLAG PSP created; else DAT_HANDLE_NULL).")],
     desc="dat_cr_query() returns what the requester sent.  private_data points into the CR: it is valid until the CR is accepted, rejected or handed off.",
     errors=[OK, bad("DAT_INVALID_HANDLE_CR", "The provider: not a live CR."), arg(2, "A bit outside DAT_CR_FIELD_ALL."), arg(3, "*cr_param* is NULL.")],
     see=["dat_cr_accept", "dat_cr_reject"])

page(name="dat_cr_accept", brief="accept a connection request", handle="cr_handle",
     params=[("cr_handle", "The CR."),
             ("ep_handle", "For a PSP's CR: an UNCONNECTED EP of the IA.  For an RSP's CR, or a CR whose EP the provider created (DAT_PSP_PROVIDER_FLAG): DAT_HANDLE_NULL or that EP (TENTATIVE_CONNECTION_PENDING: dat_ep_modify() must have given it a PZ first)."),
             ("private_data_size", "0 to max_private_data_size (40) bytes returned to the requester."),
             ("private_data", "The data.")],
     desc="""dat_cr_accept() answers the request.  The EP goes to
DAT_EP_STATE_COMPLETION_PENDING and to CONNECTED with
DAT_CONNECTION_EVENT_ESTABLISHED on its connect EVD; the CR handle is
destroyed on success.  If the requester gave up meanwhile, or died (its
process killed after its request), the call succeeds and the EP gets
DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, never ESTABLISHED, and goes
to DISCONNECTED with its posted receives flushed (DAT_DTO_ERR_FLUSHED), on
every provider and fabric.  On error the EP and the CR are unchanged.""",
     errors=[OK, bad("DAT_INVALID_HANDLE_EP", "*ep_handle* is not a live EP of the CR's IA, or (RSP) another EP that is not live."),
             arg(2, "RSP's CR or provider-created EP: *ep_handle* is a live EP but not the CR's."),
             arg(3, "*private_data_size* is negative or above max_private_data_size (40)."),
             arg(4, "*private_data_size* is not 0 and *private_data* is NULL."),
             ("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_*", "The EP is not UNCONNECTED (PSP), PASSIVE_CONNECTION_PENDING (RSP) or TENTATIVE_CONNECTION_PENDING (provider-created; DAT_INVALID_STATE_EP_UNCONFTENTATIVE while it has no PZ)."),
             bad("DAT_INVALID_HANDLE_CR", "libdaplcma: the request's rdma_cm id is gone."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "libdaplcma: rdma_accept() ran out of resources.")],
     see=["dat_cr_reject", "dat_cr_query", "dat_psp_create", "dat_rsp_create"])

page(name="dat_cr_reject", brief="reject a connection request", handle="cr_handle",
     params=[("cr_handle", "The CR.")],
     desc="dat_cr_reject() refuses the request; the requester's EP gets DAT_CONNECTION_EVENT_PEER_REJECTED.  The CR handle is destroyed; an RSP's EP returns to UNCONNECTED; an EP the provider created for the request (DAT_PSP_PROVIDER_FLAG) is freed and its handle is stale.",
     errors=[OK, bad("DAT_INVALID_HANDLE_CR", "The provider: not a live CR (or its rdma_cm id is gone).")],
     see=["dat_cr_accept"])

page(name="dat_cr_handoff", brief="pass a connection request to another service point", handle="cr_handle",
     params=[("cr_handle", "The CR."), ("handoff", "The connection qualifier of another PSP or RSP of the same IA.")],
     desc="""dat_cr_handoff() gives the request to the service point listening on
*handoff*: a new CR with the same remote address and private data is
announced by a DAT_CONNECTION_REQUEST_EVENT on that service point's EVD, and
*cr_handle* is destroyed.

A connection request is never lost: a request whose event has no room on
its service point's CR EVD (which other service points or connection events
may share) is rejected to the peer, which gets a rejected connection event,
and DAT_ASYNC_ERROR_EVD_OVERFLOW is posted on the IA's async EVD.""",
     errors=[OK, bad("DAT_INVALID_HANDLE_CR", "The provider: not a live CR."),
             arg(2, "No PSP or RSP of the IA listens on *handoff*, or it is an RSP that is no longer RESERVED."),
             ("DAT_QUEUE_FULL", "DAT_NO_SUBTYPE", "The EVD of the service point on *handoff* has no room for the request's event: nothing changed, *cr_handle* is still valid (accept, reject or hand it off again)."),
             NOMEM],
     see=["dat_cr_accept", "dat_psp_create"])

# ---------------------------------------------------------------- SRQ
SRQ_NOTE = """libdaplcma.so.1 makes the SRQ with ibv_create_srq() on the SRQ's PZ.
Receives of different EPs complete in any order, so the SRQ keeps its
receive cookies on a free list (no allocation when posting or polling; the
SRQ's own mutex only), and the provider names the EP of each completion from
its queue pair number.  The low watermark is the verbs SRQ limit.  Where
dat_ia_query() reports max_srqs 0 (no SRQs on the device, or
DAPL_CMA_DISABLE=srq) dat_srq_create() returns DAT_MODEL_NOT_SUPPORTED."""
LW_EVENT = """The low-watermark event is an event on the IA's async EVD with
event_number DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR (DAT 1.2 has no number
of its own for it), asynch_error_event_data.dat_handle the SRQ and reason
DAT_SRQ_LOW_WATERMARK_EVENT (2)."""
SRQ_BAD = bad("DAT_INVALID_HANDLE_SRQ", "The provider: not a live SRQ (a freed one, or a handle of another type).")
page(name="dat_srq_create", brief="create a shared receive queue", handle="ia_handle",
     params=[("ia_handle", "The IA."), ("pz_handle", "The PZ of the SRQ: its receive buffers must be in LMRs of this PZ, and its EPs on it."),
             ("srq_attr", "max_recv_dtos (1 to max_recv_per_srq of dat_ia_query()), max_recv_iov (1 to max_iov_segments_per_dto), low_watermark (0, DAT_SRQ_LW_DEFAULT, to max_recv_dtos; a nonzero one is set as by dat_srq_set_lw(), so with no buffer posted its event comes at once)."),
             ("srq_handle", "Out: the new SRQ.")],
     desc="""An SRQ is a pool of receive buffers shared by the EPs created with
dat_ep_create_with_srq(): any of them takes the next buffer for its next
incoming message.  Completions arrive on each EP's recv EVD, in send order
per connection, in no order across connections.""",
     errors=[OK, bad("DAT_INVALID_HANDLE_PZ", "*pz_handle* is not a live PZ of this IA."),
             ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "max_srqs is 0: the device has no SRQs or DAPL_CMA_DISABLE=srq."),
             arg(3, "*srq_attr* is NULL or out of the IA's limits, or its low_watermark is above max_recv_dtos."), arg(4, "*srq_handle* is NULL."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_SRQ", "The device could not make the SRQ."), NOMEM],
     notes=SRQ_NOTE + "\n\n" + LW_EVENT, see=["dat_ep_create_with_srq", "dat_srq_free", "dat_srq_post_recv", "dat_srq_set_lw"])

page(name="dat_srq_free", brief="destroy a shared receive queue", handle="srq_handle",
     params=[("srq_handle", "The SRQ.")],
     desc="""dat_srq_free() destroys an SRQ that no EP uses.  Buffers still posted
to it are dropped without completions.""",
     errors=[OK, SRQ_BAD, ("DAT_INVALID_STATE", "DAT_INVALID_STATE_SRQ_IN_USE", "An EP created with dat_ep_create_with_srq() still uses it (the page's DAT_SRQ_IN_USE).")],
     notes=SRQ_NOTE, see=["dat_srq_create", "dat_ep_free"])

page(name="dat_srq_post_recv", brief="post a receive buffer to a shared receive queue", handle="srq_handle",
     params=[("srq_handle", "The SRQ."), ("num_segments", "Entries of *local_iov*, 0 to the SRQ's max_recv_iov."),
             ("local_iov", "Segments of local memory: DAT_LMR_TRIPLET {lmr_context, virtual_address, segment_length}, each inside a live LMR of the SRQ's PZ with local write privilege; a zero-length segment is not checked."),
             ("user_cookie", "Returned in the completion event.")],
     desc="""dat_srq_post_recv() adds a buffer that any EP of the SRQ may take.  Its
completion is a DAT_DTO_COMPLETION_EVENT on the recv EVD of the EP that took
it, with that EP's handle, always signalled.  At most max_recv_dtos buffers
may be outstanding (posted and not yet reaped).""",
     errors=[OK, SRQ_BAD, arg(2, "*num_segments* is negative or above the SRQ's max_recv_iov (and 64)."),
             arg(3, "*local_iov* is NULL with segments, or a segment lies outside its LMR."),
             ("DAT_PRIVILEGES_VIOLATION", "DAT_NO_SUBTYPE", "A segment's lmr_context is not a live LMR of the IA, or its LMR lacks local write."),
             ("DAT_PROTECTION_VIOLATION", "DAT_NO_SUBTYPE", "A segment's LMR is in another PZ than the SRQ."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_SRQ", "max_recv_dtos buffers are outstanding already.")],
     notes=SRQ_NOTE, see=["dat_srq_create", "dat_ep_post_recv", "dat_evd_dequeue"])

page(name="dat_srq_query", brief="query a shared receive queue", handle="srq_handle",
     params=[("srq_handle", "The SRQ."), ("srq_param_mask", MASK("srq", 2)),
             ("srq_param", "Out: IA, state (always DAT_SRQ_STATE_OPERATIONAL), PZ, max_recv_dtos, max_recv_iov, low_watermark, available_dto_count and outstanding_dto_count.")],
     desc="""dat_srq_query() returns the SRQ's parameters (all of them, whatever the
mask).  outstanding_dto_count is exact: buffers posted whose completion was
not yet reaped.  available_dto_count is DAT_VALUE_UNKNOWN: verbs does not say
how many buffers are still on the SRQ (srq_info_supported is 1).""",
     errors=[OK, SRQ_BAD, arg(2, "*srq_param_mask* has a bit outside DAT_SRQ_FIELD_ALL."), arg(3, "*srq_param* is NULL.")],
     notes=SRQ_NOTE, see=["dat_srq_create", "dat_srq_resize"])

page(name="dat_srq_resize", brief="change the size of a shared receive queue", handle="srq_handle",
     params=[("srq_handle", "The SRQ."), ("srq_max_recv_dto", "The new number of receives the SRQ holds, 1 to max_recv_per_srq.")],
     desc="""dat_srq_resize() grows the SRQ (ibv_modify_srq() with IBV_SRQ_MAX_WR) or
lowers the number of buffers that may be outstanding.  Verbs cannot shrink
an SRQ, so a smaller size only limits dat_srq_post_recv(), as the page
allows.  No buffer is lost.""",
     errors=[OK, SRQ_BAD, arg(2, "*srq_max_recv_dto* is not positive or above max_recv_per_srq."),
             ("DAT_INVALID_STATE", "DAT_NO_SUBTYPE", "More buffers are outstanding than *srq_max_recv_dto*, or it is below the low watermark."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_SRQ", "The device could not grow the SRQ."), NOMEM],
     notes=SRQ_NOTE, see=["dat_srq_create", "dat_srq_query", "dat_srq_set_lw"])

page(name="dat_srq_set_lw", brief="set the low watermark of a shared receive queue", handle="srq_handle",
     params=[("srq_handle", "The SRQ."),
             ("low_watermark", "0 (DAT_SRQ_LW_DEFAULT: no event) to max_recv_dtos.  When fewer buffers than this remain on the SRQ, the IA's async EVD gets one event; the watermark must be set again for the next one.")],
     desc="""dat_srq_set_lw() arms the low-watermark event (the verbs SRQ limit).  If
fewer buffers are queued already (known for sure when fewer are
outstanding; otherwise as the device says), the event comes at once.""",
     errors=[OK, SRQ_BAD, arg(2, "*low_watermark* is negative or above max_recv_dtos.")],
     notes=SRQ_NOTE + "\n\n" + LW_EVENT, see=["dat_srq_create", "dat_srq_post_recv", "dat_evd_wait"])

# ---------------------------------------------------------------- IB extension
EXT_INC = ["dat/udat.h", "dat/dat_ib_extensions.h"]
EXT_NOTE = """The extension is additive: the DAT 1.2 ABI and the 72 calls are unchanged.
dat_extension_op() and dat_registry_add_extension() are exported under the
version node DAT_1.2_EXT of libdat.so.1.  libdat never reads the
provider-private extension slot of DAT_PROVIDER; a provider registers its
extension function instead (libdaplcma.so.1 does so in dat_provider_init()).

libdaplofi.so.1 (libfabric) posts fi_fetch_atomic(FI_SUM) and
fi_compare_atomic(FI_CSWAP) on one FI_UINT64, its target translated like an
RDMA's (an offset into the peer's registration where the libfabric provider
addresses RMA by offset).  It offers them only where the libfabric provider
has them (fi_fetch_atomicvalid(), fi_compare_atomicvalid() at IA open); else
the attributes say "FALSE" and the calls return DAT_MODEL_NOT_SUPPORTED
(so over libfabric's tcp named alone, whose FI_EP_MSG endpoints have no
atomics; nothing is emulated).  libfabric registrations have no remote atomic privilege: the provider checks
DAT_IB_MEM_PRIV_REMOTE_ATOMIC of the target's LMR itself (the peer sends it
with the registration's base), so an atomic without it fails with
DAT_DTO_ERR_REMOTE_ACCESS and breaks the connection, as on verbs."""
ATOMIC_ERRS = lambda local, remote, flags: [
    OK, ("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE1", "libdat: *ep* is NULL, not 4-byte aligned, or not an object of a registered provider."),
    bad("DAT_INVALID_HANDLE_EP", "The provider: not a live EP (a freed one, or a handle of another type)."),
    ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "The device has no atomics (provider attributes DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP are \"FALSE\", also with DAPL_CMA_DISABLE=atomic), or the EP's provider registered no extension."),
    arg(local, "*local_iov* is NULL, or its first 8 bytes lie outside its LMR."),
    ("DAT_LENGTH_ERROR", "DAT_NO_SUBTYPE", "*local_iov* is shorter than 8 bytes."),
    arg(remote, "*remote_iov* is NULL or its target_address is not 8-byte aligned."),
    ("DAT_PRIVILEGES_VIOLATION", "DAT_NO_SUBTYPE", "*local_iov*'s lmr_context is not a live LMR of the IA, or its LMR lacks DAT_MEM_PRIV_LOCAL_WRITE_FLAG (the original value is written there)."),
    ("DAT_PROTECTION_VIOLATION", "DAT_NO_SUBTYPE", "*local_iov*'s LMR is in another PZ than the EP."),
    arg(flags, "*completion_flags* has a bit that is not a completion flag, or UNSIGNALLED that the EP's request_completion_flags do not allow."),
    EP_STATE, ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "max_request_dtos requests are outstanding on the EP.")]
ATOMIC_DESC = """The original 64-bit value at the remote address lands in the first 8 bytes
of *local_iov* (the remote side's byte order, as verbs defines it).  The
remote region must be registered with DAT_IB_MEM_PRIV_REMOTE_ATOMIC (0x40) in
dat_lmr_create(); without it the operation fails at the target and completes
with DAT_DTO_ERR_REMOTE_ACCESS, which breaks the connection.  Every error
above is found before anything is posted.

The completion is an event with event_number DAT_IB_DTO_EVENT (0x40000) on
the EP's request EVD, with the usual DAT_DTO_COMPLETION_EVENT_DATA: the EP,
*user_cookie*, the status and transfered_length 8.  The EP's state, flag and
cookie rules are those of dat_ep_post_rdma_read()."""
ATOMIC_PARAMS = [("local_iov", "One DAT_LMR_TRIPLET of at least 8 bytes in an LMR of the EP's PZ: the original value lands in its first 8 bytes."),
                 ("user_cookie", "Returned in the completion event."),
                 ("remote_iov", "One DAT_RMR_TRIPLET {rmr_context, target_address, segment_length}: the peer's rmr_context and an 8-byte aligned address."),
                 ("completion_flags", "As for dat_ep_post_rdma_read(): DAT_COMPLETION_DEFAULT_FLAG, SUPPRESS, SOLICITED_WAIT, UNSIGNALLED (if the EP allows it), BARRIER_FENCE.")]

page(name="dat_ib_post_fetch_and_add", brief="add to a 64-bit value in remote memory and fetch the old one",
     include=EXT_INC, no_dispatch=True,
     synopsis="""DAT_RETURN dat_ib_post_fetch_and_add(DAT_EP_HANDLE ep,
    DAT_UINT64 add_value, DAT_LMR_TRIPLET *local_iov,
    DAT_DTO_COOKIE user_cookie, const DAT_RMR_TRIPLET *remote_iov,
    DAT_COMPLETION_FLAGS completion_flags);  /* a macro */""",
     params=[("ep", "The EP, connected."), ("add_value", "Added to the remote value (IBV_WR_ATOMIC_FETCH_AND_ADD).")] + ATOMIC_PARAMS,
     desc="""dat_ib_post_fetch_and_add() atomically adds *add_value* to the 64-bit value
at the remote address, as the DAT 2.0 IB extension of the same name.  It is
a macro over dat_extension_op() with DAT_IB_FETCH_AND_ADD_OP.\n\n""" + ATOMIC_DESC,
     errors=ATOMIC_ERRS(3, 5, 6), notes=EXT_NOTE,
     see=["dat_ib_post_cmp_and_swap", "dat_extension_op", "dat_lmr_create", "dat_ep_post_rdma_read"])

page(name="dat_ib_post_cmp_and_swap", brief="compare and swap a 64-bit value in remote memory",
     include=EXT_INC, no_dispatch=True,
     synopsis="""DAT_RETURN dat_ib_post_cmp_and_swap(DAT_EP_HANDLE ep,
    DAT_UINT64 compare_value, DAT_UINT64 swap_value,
    DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie,
    const DAT_RMR_TRIPLET *remote_iov,
    DAT_COMPLETION_FLAGS completion_flags);  /* a macro */""",
     params=[("ep", "The EP, connected."), ("compare_value", "The value expected at the remote address."),
             ("swap_value", "Stored there if it held *compare_value* (IBV_WR_ATOMIC_CMP_AND_SWP).")] + ATOMIC_PARAMS,
     desc="""dat_ib_post_cmp_and_swap() atomically replaces the 64-bit value at the
remote address by *swap_value* if it equals *compare_value*; either way the
original value comes back, so the caller sees whether it hit.  It is a macro
over dat_extension_op() with DAT_IB_CMP_AND_SWAP_OP.\n\n""" + ATOMIC_DESC,
     errors=ATOMIC_ERRS(4, 6, 7), notes=EXT_NOTE,
     see=["dat_ib_post_fetch_and_add", "dat_extension_op", "dat_lmr_create"])

page(name="dat_extension_op", brief="call an extension operation of a handle's provider",
     include=EXT_INC, no_dispatch=True,
     synopsis="""DAT_RETURN dat_extension_op(DAT_HANDLE handle, DAT_EXTENDED_OP op, ...);""",
     params=[("handle", "A handle of any type; the atomics take an EP."),
             ("op", "The operation: DAT_IB_FETCH_AND_ADD_OP (0) or DAT_IB_CMP_AND_SWAP_OP (1), then its arguments as dat_ib_post_fetch_and_add(3) and dat_ib_post_cmp_and_swap(3) pass them.")],
     desc="""dat_extension_op() checks *handle* as every libdat call does and calls the
extension function that the handle's provider registered with
dat_registry_add_extension(), with *op* and the remaining arguments as a
va_list; its result comes back unchanged.  Use the dat_ib_post_* macros
rather than this call: they convert each argument to the type the provider
reads.""",
     errors=[OK, ("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE1", "libdat: *handle* is NULL, not 4-byte aligned, or does not point to an object of a provider that is registered now."),
             ("DAT_MODEL_NOT_SUPPORTED", "DAT_NO_SUBTYPE", "libdat: the handle's provider registered no extension function.  libdaplcma: *op* is not an operation it knows."),
             ("(others)", "What the provider's function returns for *op*: see dat_ib_post_fetch_and_add(3).")],
     notes=EXT_NOTE, see=["dat_ib_post_fetch_and_add", "dat_ib_post_cmp_and_swap", "dat_registry_add_extension"])

page(name="dat_registry_add_extension", brief="register a provider's extension function",
     include=["dat/udat.h", "dat/dat_registry.h", "dat/dat_ib_extensions.h"], no_dispatch=True,
     synopsis="""typedef DAT_RETURN (*DAT_EXTENSION_FUNC)(DAT_HANDLE handle,
    DAT_EXTENDED_OP op, va_list args);

DAT_RETURN dat_registry_add_extension(const DAT_PROVIDER *provider,
    DAT_EXTENSION_FUNC func);""",
     params=[("provider", "A table registered now with dat_registry_add_provider()."),
             ("func", "The function dat_extension_op() calls for handles whose first word is *provider*; NULL takes the registration away.")],
     desc="""A provider calls dat_registry_add_extension() after dat_registry_add_provider(),
once per table.  libdat keeps the function with the table's registry slot
and forgets it in dat_registry_remove_provider(); a later registration
replaces an earlier one.  The function gets the handle, the operation and
the operation's arguments as a va_list (read them with va_arg in the order
of the operation; do not va_end it).""",
     errors=[OK, arg(1, "*provider* is NULL or not a table registered now.")],
     notes=EXT_NOTE, see=["dat_extension_op", "dat_registry_add_provider", "dat_provider_init"])

# ---------------------------------------------------------------- registry
page(name="dat_registry_list_providers", brief="list the registered interface adapters",
     include=["dat/udat.h"],
     params=[("max_to_return", "How many entries *dat_provider_list* has room for; 0 asks for the count only."),
             ("entries_returned", "Out: how many were stored; with *max_to_return* 0, how many there are."),
             ("dat_provider_list", "An array of *max_to_return* pointers to DAT_PROVIDER_INFO {ia_name, dapl_version_major, dapl_version_minor, is_thread_safe} that are filled.")],
     desc="""dat_registry_list_providers() lists every dat.conf entry that libdat
registered (u entries marked default, duplicates dropped), in file order,
then the providers registered at run time that are not dat.conf entries.  It
loads no library.""",
     errors=[OK, arg(2, "*entries_returned* is NULL."), arg(1, "*max_to_return* is negative; also, by the DAT 1.2 convention, when it is 0, after storing the count in *entries_returned*."),
             arg(3, "*max_to_return* is positive and *dat_provider_list* is NULL.")],
     notes="When there are more entries than *max_to_return*, the first *max_to_return* are stored and the call succeeds.",
     see=["dat_ia_openv", "dat_registry_add_provider", "dat.conf", "datadm"])

page(name="dat_registry_add_provider", brief="register a provider's DAT_PROVIDER table",
     include=["dat/udat.h", "dat/dat_registry.h"],
     params=[("provider", "The provider's table; its ia_open_func must be set and its device_name is the IA name.  It must stay valid until removed."),
             ("provider_info", "The key: ia_name (not empty, NUL within 256 bytes), dapl_version_major, dapl_version_minor, is_thread_safe.")],
     desc="""A provider library calls dat_registry_add_provider() from its
dat_provider_init(), once per key it serves; an application may also register
a provider it carries itself.  From then on dat_ia_openv() with that key
opens through the table, and libdat's dispatch check accepts handles whose
first word is this table.""",
     errors=[OK, arg(1, "*provider* is NULL, or one of the entry points of its table (every member from *ia_open_func* to *srq_set_lw_func*) is NULL: a provider without a feature fills its slots with calls that say so (with DAT_DBG_TYPE's error messages on, libdat names the empty entry)."), arg(2, "*provider_info* is NULL or its IA name is empty or too long."),
             ("DAT_PROVIDER_ALREADY_REGISTERED", "DAT_NO_SUBTYPE", "The key is registered already."),
             ("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY", "All 256 slots of the dynamic registry are in use.")],
     notes="""The table of registered providers is a fixed array of 256 slots that the
dispatch check of every call reads without a lock; slots are reused but the
array never moves.""",
     see=["dat_registry_remove_provider", "dat_provider_init", "dat_ia_openv"])

page(name="dat_registry_remove_provider", brief="unregister a provider's table",
     include=["dat/udat.h", "dat/dat_registry.h"],
     params=[("provider", "The table that was registered under the key."), ("provider_info", "The key.")],
     desc="A provider calls dat_registry_remove_provider() from dat_provider_fini().  Afterwards handles of that table get DAT_INVALID_HANDLE from libdat.",
     errors=[OK, arg(1, "*provider* is NULL, or another table is registered under the key."), arg(2, "*provider_info* is NULL or has a bad IA name."),
             ("DAT_PROVIDER_NOT_FOUND", "DAT_NAME_NOT_REGISTERED", "Nothing is registered under the key."),
             ("DAT_PROVIDER_IN_USE", "DAT_NO_SUBTYPE", "An IA opened through the table is still open.")],
     see=["dat_registry_add_provider", "dat_provider_fini"])

page(name="dat_strerror", brief="describe a DAT_RETURN value",
     params=[("value", "Any DAT_RETURN."), ("major_message", "Out: the text of the type, e.g. \"DAT_INVALID_PARAMETER: invalid parameter\"."),
             ("minor_message", "Out: the text of the subtype, e.g. \"DAT_INVALID_ARG3: argument 3 is invalid\".")],
     desc="""dat_strerror() returns two static strings, each starting with the name of the
constant (for grep) and then saying what it means.  A DAT_RETURN is
DAT_GET_TYPE(value) (bits 16-29; DAT_NOT_IMPLEMENTED is 0x0FFF0000)
plus DAT_GET_SUBTYPE(value) (bits 0-15); the class bits 30-31 are ignored.""",
     errors=[OK, arg(1, "The type or the subtype is not one DAT 1.2 defines; nothing is stored."),
             arg(2, "*major_message* is NULL."), arg(3, "*minor_message* is NULL.")],
     see=["dat_ia_openv"])

page(name="dat_provider_init", brief="the entry point libdat calls in a provider library",
     include=["dat/udat.h", "dat/dat_registry.h"],
     synopsis="""void dat_provider_init(const DAT_PROVIDER_INFO *provider_info,
    const char *instance_data);""",
     params=[("provider_info", "The key of the dat.conf entry being opened: IA name, DAT version, thread safety."),
             ("instance_data", "The entry's ia_params field (the seventh field of dat.conf), without its quotes.")],
     desc="""A provider library exports dat_provider_init (libdat finds it with dlsym() by
the name DAT_PROVIDER_INIT_FUNC_STR).  libdat calls it under its static
registry lock when an IA is opened through an entry whose library is not
loaded yet; it must register a DAT_PROVIDER table for *provider_info* with
dat_registry_add_provider().  It may call the registry back.

libdaplcma.so.1 registers one table per key; ia_params are parsed later, at
dat_ia_open() time.""",
     errors=[("void", "The function returns nothing; if it registers nothing, the open fails with DAT_PROVIDER_NOT_FOUND / DAT_NAME_NOT_REGISTERED.")],
     notes="A provider library is loaded with RTLD_NOW | RTLD_LOCAL; libdaplcma links libdat.so.1 itself so it resolves the registry calls even then, and exports only dat_provider_init and dat_provider_fini.",
     see=["dat_provider_fini", "dat_registry_add_provider", "dat.conf"])

page(name="dat_provider_fini", brief="the exit point libdat calls when the last IA of a provider entry closes",
     include=["dat/udat.h", "dat/dat_registry.h"],
     synopsis="void dat_provider_fini(const DAT_PROVIDER_INFO *provider_info);",
     params=[("provider_info", "The key of the entry whose last IA just closed.")],
     desc="""libdat calls dat_provider_fini (optional; found by dlsym()) when the last IA
opened through a dat.conf entry is closed.  The provider removes its table
with dat_registry_remove_provider() and frees what it holds for the key.
The library stays loaded: a later open of the entry calls
dat_provider_init() on it again, and libdat dlclose()s the libraries no IA
uses at exit, from an atexit handler (so before the libraries' own
destructors run).""",
     errors=[("void", "The function returns nothing.")],
     see=["dat_provider_init", "dat_registry_remove_provider", "dat_ia_close"])
