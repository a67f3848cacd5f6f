/*
 * regio.h - C interface of the Regio measurement runtime (libregio.a,
 * libregio.so).
 *
 * Instrumented code calls these with region ids from the IDF
 * (regio.idf.json). Each thread builds its own dynamic code-region call
 * graph; one profile per process is written into the run directory
 * ($REGIO_DIR, else regio-run-<program>-<pid>) at exit, after exit() from
 * anywhere, on regio_flush() and on SIGSEGV, SIGABRT, SIGTERM, SIGINT,
 * SIGBUS and SIGFPE. REGIO_DISABLE=1 turns all measurement off.
 *
 * Every function is thread-safe and may be called before main (the runtime
 * starts lazily on first use).
 */
#ifndef REGIO_H
#define REGIO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enters region `id` on the calling thread. */
void regio_enter(uint32_t id);

/* regio_enter for a region whose probe gate (regio_gates) the caller read
 * as 0, or that has none: the runtime does not read the gate again.
 * Instrumented C calls this one. */
void regio_enter_gated(uint32_t id);

/* Leaves region `id`. If `id` is not the innermost open region, every
 * region above its innermost frame is closed at the same moment (they
 * missed their exit, e.g. through longjmp or a return); if `id` is not open
 * at all (entered while disabled) nothing happens. */
void regio_exit(uint32_t id);

/* Cleanup hook for guard variables: regio_exit(*id). Instrumented C uses
 * it through a cleanup function of its prelude that skips a guard whose
 * entry was gated (see regio_gates):
 *   const unsigned int regio__g3 __attribute__((cleanup(regio__leave),
 *       unused)) = regio__guard(3u);
 * so every exit path of the enclosing block closes the region. */
void regio_guard_exit(const uint32_t *id);

/* Returns the number of regions open on the calling thread; pass it to
 * regio_scope_close. */
uint32_t regio_scope_open(void);

/* Closes every region the calling thread opened above *depth (a value from
 * regio_scope_open), with normal accounting. Used as a cleanup guard in
 * functions that contain user regions but are not regions themselves. */
void regio_scope_close(const uint32_t *depth);

/* Stops measuring, process-wide, until regio_enable. Regions entered while
 * disabled are not recorded; regions entered before still close. */
void regio_disable(void);

/* Measures again after regio_disable (no effect under REGIO_DISABLE=1). */
void regio_enable(void);

/* Remembers the absolute path of an IDF whose region ids are used as they
 * are (base 0: Fortran main programs and older instrumented C call this).
 * Only the first such IDF is kept. Every registered IDF is copied into the
 * run directory as regio.idf-<hash>.json, the first also as
 * regio.idf.json, whenever the profile is written. */
void regio_register_idf(const char *abs_path);

/* Registers the IDF of an instrumented object (from its constructor) and
 * returns the base its probes add to their local region ids: objects of one
 * IDF share a base, objects of different IDFs never share ids. */
uint32_t regio_register_object(const char *abs_path);

/* The probe gates of the object with base `base` (call it after
 * regio_register_object): one byte per local region id below
 * REGIO_GATED_LOCAL_IDS, 0 while the region is recorded. Instrumented C
 * reads it before each probe, so a region that is not recorded costs no
 * call:
 *   entry:  if (!gates[id]) regio_enter_gated(base + id);
 *   guard:  the guard variable holds base + id if the entry was made, else
 *           0, and its cleanup calls regio_guard_exit only when nonzero;
 *   exit:   if (!(gates[id] & REGIO_GATE_NO_EXIT)) regio_exit(base + id);
 * A nonzero byte means: filtered (REGIO_FILTER), masked (REGIO_EVENTS,
 * regio_set_events), throttled (REGIO_THROTTLE), or REGIO_DISABLE=1.
 * REGIO_GATE_NO_EXIT is set only for reasons fixed before any frame of the
 * region can be open (filtered, REGIO_DISABLE), so an exit skipped for it
 * has nothing to close; a masked or throttled region may change while a
 * frame of it is open, so its exit is still called. Never returns NULL:
 * an object without gates gets regio_no_gates (all 0: probe every id),
 * which instrumented C also reads before its constructor has run. */
const unsigned char *regio_gates(uint32_t base);
extern const unsigned char regio_no_gates[];
#define REGIO_GATED_LOCAL_IDS 131072u
#define REGIO_GATE_NO_EXIT 1u

/* Writes the profile now (reason "flush"); a later write replaces it. */
void regio_flush(void);

/* Which region kinds and event classes are recorded from now on, for the
 * profile and the trace: a comma list of the REGIO_EVENTS words
 * (functions, loops, calls, io, omp, mpi, user, messages, all, none).
 * Returns 0, or -1 for a wrong list (nothing changed). */
int regio_set_events(const char *list);

/* A user event: `name` with `value` now, on the calling thread (in the
 * trace a `user` record; REGIO_EVENTS class `user`). At most 256 distinct
 * names per process. */
void regio_event(const char *name, double value);

/* OpenMP parallel regions (emitted by `instrument --regions omp`):
 *
 *   uint64_t regio__team3 = regio_omp_fork(3u);
 *   #pragma omp parallel ... firstprivate(regio__team3)
 *   { regio_omp_begin(regio__team3, 4u);
 *     ... body, instrumented barrier ...
 *     regio_omp_end(regio__team3, 5u); }
 *   regio_omp_join(regio__team3);
 *
 * fork enters parallel region `id` on the encountering thread and returns
 * a team token (0 when not measuring). Every team thread's regions attach
 * under the parallel region of the encountering thread's path; each thread
 * records a child `fork_id` (from the fork to its begin) and, at the join, a
 * child `join_id` (from its end to the join). */
uint64_t regio_omp_fork(uint32_t id);
void regio_omp_begin(uint64_t team, uint32_t fork_id);
void regio_omp_end(uint64_t team, uint32_t join_id);
void regio_omp_join(uint64_t team);

/* MPI (emitted by `instrument --regions mpi` after MPI_Init/_thread
 * returns): the rank in MPI_COMM_WORLD and its size, which name this
 * process's profile (they override the launcher's environment). */
void regio_mpi_rank(int rank, int size);

/* The same for code that cannot call PMPI itself: the runtime finds
 * PMPI_Comm_rank/size in the process (Open MPI and MPICH ABIs). */
void regio_mpi_init_done(void);

/* Before MPI_Abort: writes this rank's profile and asks the other ranks of
 * the job on this host to write theirs (launchers such as MPICH's Hydra end
 * them with SIGKILL, which cannot be caught). Waits at most 3 s. */
void regio_mpi_abort(void);

/* Before MPI_Finalize: the second measurement of this rank's clock against
 * rank 0 (the first is made when MPI_Init's rank is reported). */
void regio_mpi_finalize(void);

/* MPI argument capture (emitted after the call returns, before its region
 * is left). Handles (MPI_Comm, MPI_Datatype, MPI_Request) are widened to
 * 64 bits: (uint64_t)(uintptr_t)handle.
 * regio_mpi_msg: a blocking send (kind 0), receive (1, with its status or
 * NULL / MPI_STATUS_IGNORE) or collective (2, peer = root or -1).
 * regio_mpi_post: a non-blocking or persistent (kind + 4) send or receive
 * and its request. regio_mpi_reqs before and regio_mpi_done after a
 * Wait/Test call: its requests (elem = sizeof(MPI_Request)); all = every
 * one completed, else those whose handle changed. */
void regio_mpi_msg(uint32_t id, int kind, int peer, int tag, uint64_t comm, int64_t count, uint64_t datatype, const void *status);
void regio_mpi_post(uint32_t id, int kind, int peer, int tag, uint64_t comm, int64_t count, uint64_t datatype, uint64_t request);
void regio_mpi_reqs(int n, const void *reqs, int elem);
void regio_mpi_done(uint32_t id, int n, const void *reqs, int elem, int all, const void *statuses);
void regio_mpi_request_free(uint64_t request);
/* regio_mpi_comm_new: after a call that created communicator `new` from
 * `parent` (MPI_Comm_split, _dup, _create, topology constructors,
 * MPI_Intercomm_merge): its trace id, the same on every member. */
void regio_mpi_comm_new(uint64_t parent, uint64_t new_comm);
/* regio_mpi_comm_made: after MPI_Comm_idup (how 1: the handle the call
 * wrote, a duplicate not usable yet) or MPI_Comm_create_group (how 2, with
 * its tag): the new communicator's run-wide trace id. */
void regio_mpi_comm_made(int32_t how, uint64_t parent, uint64_t new_comm, int32_t tag);
/* regio_mpi_start: after MPI_Start/MPI_Startall, its n persistent
 * requests (elem = sizeof(MPI_Request)), whose messages start there. */
void regio_mpi_start(uint32_t id, int n, const void *reqs, int elem);
/* regio_mpi_coll: after a collective, its root (-1: none) and per side
 * (send, receive) a count or an array of one count per rank, and the
 * datatype; `shape` says how they give this process's bytes. */
void regio_mpi_coll(uint32_t id, int shape, int root, uint64_t comm, int64_t send_count, const void *send_counts, uint64_t send_type, int64_t recv_count, const void *recv_counts, uint64_t recv_type);

/* Host teams: first and last statement of a teams construct's body. The
 * runtime enters `body` and, inside it, a region `team <k>` (kind
 * omp_team) for this team's number (omp_get_team_num, looked up at run
 * time), so each team's time is reported apart. */
void regio_omp_teams_begin(uint32_t body);
void regio_omp_teams_end(uint32_t body);

/* Fortran-callable twins: arguments by reference, trailing underscore. */

/* call regio_enter(id) with INTEGER(4) id. */
void regio_enter_(const int32_t *id);

/* call regio_exit(id) with INTEGER(4) id. */
void regio_exit_(const int32_t *id);

/* call regio_disable() */
void regio_disable_(void);

/* call regio_enable() */
void regio_enable_(void);

/* call regio_flush() */
void regio_flush_(void);

/* call regio_omp_fork(id, team) with INTEGER(4) id, INTEGER(8) team;
 * call regio_omp_begin(team, fork_id); call regio_omp_end(team, join_id);
 * call regio_omp_join(team) */
void regio_omp_fork_(const int32_t *id, int64_t *team);
void regio_omp_begin_(const int64_t *team, const int32_t *fork_id);
void regio_omp_end_(const int64_t *team, const int32_t *join_id);
void regio_omp_join_(const int64_t *team);

/* call regio_omp_teams_begin(id) / regio_omp_teams_end(id), INTEGER(4) id */
void regio_omp_teams_begin_(const int32_t *body);
void regio_omp_teams_end_(const int32_t *body);

/* Fortran lock tests inside expressions, written by the instrumenter in
 * place of omp_test_lock( / omp_test_nest_lock(: regio_tl(id, lock) and
 * regio_tnl(id, lock) call the OpenMP library's Fortran routine inside
 * region id and return its result (LOGICAL(4) / INTEGER(4)). */
int32_t regio_tl_(const int32_t *id, void *lock);
int32_t regio_tnl_(const int32_t *id, void *lock);

/* call regio_mpi_rank(rank, size) with INTEGER(4) arguments */
void regio_mpi_rank_(const int32_t *rank, const int32_t *size);

/* call regio_mpi_init_done() */
void regio_mpi_init_done_(void);

/* call regio_mpi_abort() */
void regio_mpi_abort_(void);

/* call regio_mpi_finalize() */
void regio_mpi_finalize_(void);

/* MPI argument capture from Fortran, INTEGER(4) arguments; comm,
 * datatype and request are Fortran handles (MPI_Fint, or %MPI_VAL):
 * call regio_mpi_msg(id, kind, peer, tag, comm, count, datatype)
 * call regio_mpi_post(id, kind, peer, tag, comm, count, datatype, request)
 * call regio_mpi_reqs(n, requests) before, regio_mpi_done(id, n,
 * requests, all) after a Wait/Test call. */
void regio_mpi_msg_(const int32_t *id, const int32_t *kind, const int32_t *peer, const int32_t *tag, const int32_t *comm, const int32_t *count, const int32_t *datatype);
void regio_mpi_post_(const int32_t *id, const int32_t *kind, const int32_t *peer, const int32_t *tag, const int32_t *comm, const int32_t *count, const int32_t *datatype, const int32_t *request);
void regio_mpi_reqs_(const int32_t *n, const int32_t *reqs);
void regio_mpi_done_(const int32_t *id, const int32_t *n, const int32_t *reqs, const int32_t *all);
/* call regio_mpi_msg_status(id, kind, peer, tag, comm, count, datatype,
 * status) for a receive with its status (INTEGER array or
 * TYPE(MPI_Status)); call regio_mpi_done_status(id, n, requests, all,
 * statuses) after a Wait/Waitall with its statuses. */
void regio_mpi_msg_status_(const int32_t *id, const int32_t *kind, const int32_t *peer, const int32_t *tag, const int32_t *comm, const int32_t *count, const int32_t *datatype, const int32_t *status);
void regio_mpi_done_status_(const int32_t *id, const int32_t *n, const int32_t *reqs, const int32_t *all, const int32_t *statuses);
/* call regio_mpi_test(id, n, requests, flag) after an MPI_Test/MPI_Testall
 * (flag: its LOGICAL), regio_mpi_test_status(id, n, requests, flag,
 * statuses) with its status argument(s). */
void regio_mpi_test_(const int32_t *id, const int32_t *n, const int32_t *reqs, const int32_t *flag);
void regio_mpi_test_status_(const int32_t *id, const int32_t *n, const int32_t *reqs, const int32_t *flag, const int32_t *statuses);
/* call regio_mpi_coll_buf(id, shape, root, comm, scount, stype, rcount,
 * rtype, loc(buffer)): regio_mpi_coll with the address of the argument
 * that may be MPI_IN_PLACE (INTEGER(8), as LOC gives it). */
void regio_mpi_coll_buf_(const int32_t *id, const int32_t *shape, const int32_t *root, const int32_t *comm, const int32_t *send_count, const int32_t *send_type, const int32_t *recv_count, const int32_t *recv_type, const int64_t *buffer);
/* call regio_mpi_comm_new(parent, new) after a communicator's creation */
void regio_mpi_comm_new_(const int32_t *parent, const int32_t *new_comm);
/* call regio_mpi_comm_made(how, parent, new, tag) after MPI_Comm_idup or
 * MPI_Comm_create_group */
void regio_mpi_comm_made_(const int32_t *how, const int32_t *parent, const int32_t *new_comm, const int32_t *tag);
/* call regio_mpi_start(id, n, requests) after MPI_Start/MPI_Startall */
void regio_mpi_start_(const int32_t *id, const int32_t *n, const int32_t *reqs);
/* call regio_mpi_coll(id, shape, root, comm, scount, stype, rcount, rtype) */
void regio_mpi_coll_(const int32_t *id, const int32_t *shape, const int32_t *root, const int32_t *comm, const int32_t *send_count, const int32_t *send_type, const int32_t *recv_count, const int32_t *recv_type);

/* call regio_register_idf(path): `len` is gfortran's hidden CHARACTER
 * length, passed by value; trailing blanks are ignored. */
void regio_register_idf_(const char *path, size_t len);
/* if (regio_b == 0) call regio_register_base(regio_b, path): sets the
 * base (as regio_register_object returns it) when it is still 0. */
void regio_register_base_(int32_t *base, const char *path, size_t len);
/* call regio_tl_base(regio_b): before a statement whose lock tests call
 * regio_tl/regio_tnl with local ids; the base is added to them. */
void regio_tl_base_(const int32_t *base);
/* call regio_set_events(list) */
void regio_set_events_(const char *list, size_t len);
/* call regio_event(name, value) with REAL(8) value */
void regio_event_(const char *name, const double *value, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* REGIO_H */
