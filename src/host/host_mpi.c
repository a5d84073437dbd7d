/* SPDX-License-Identifier: MIT */
/*
 * host_mpi — the MPI host backend of iomatrix-mpi (hosts.h): the only file that includes
 * <mpi.h>. Built only by `make mpi`, with the flags of `mpicc --showme`.
 *
 * Deadlines. Every collective and transfer is non-blocking and polled (wait_req), so a rank
 * that stopped or was lost cannot keep the others waiting for ever. Between runs there is no
 * deadline (a target's preparation, its precondition, a visit's mkfs may take hours); a run's
 * ready point (m_ready, a barrier every rank reaches after its precondition) starts the run's
 * deadline, the allowance the host layer gives (m_deadline, from the run's watchdog). A rank
 * whose wait passes it asks every other rank where it is (find_lost: a query each, answered
 * by any rank polling a wait, serve); the ranks that do not answer within GRACE_NS are named
 * lost, and from then on every operation fails at once (a collective that never completes
 * cannot be cancelled): the run fails on every rank still alive, and the job ends with
 * MPI_Abort (iom_host_mpi_finish), rank 0 first recording the run.
 */
#include "host_mpi.h"

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"
#include "ownfile.h"
#include "util.h"

#define START_MARGIN_NS 10000000ull  /* the window starts at most this long after the barrier */
#define START_MARGIN_MIN_NS 2000000ull /* … and at least this long (the start margin) */
#define START_SPIN_NS 200000ull      /* … the last of it spun, not slept: no timer slack */
#define EARLY_MAX_NS 20000000ull     /* sync point 1 at most this long before a warm-up's end */
#define CHUNK (16u << 20)
#define GRACE_NS 2000000000ull       /* past a deadline: how long the others have to answer */
#define CHUNK_NS 10000000000ull      /* a transfer's chunk: at least this long to arrive */
#define LOST_WAIT_NS 30000000000ull  /* a follower: how long rank 0 has to end the job */
#define SPIN_NS 1000000ull           /* a clock ping's wait: spun this long, then polled */
#define TAG_QUERY 12
#define TAG_REPLY 13

struct mpi_ctx {
	int rank, size;
	int64_t offset_ns;           /* this rank's monotonic clock minus rank 0's */
	uint64_t start_ns;           /* the agreed start of the last window, in this rank's clock */
	bool boosted;                /* SCHED_FIFO from sync point 1 to the window's start */
	/* the start margin (rank 0): how far ahead it names the start */
	uint64_t margin_ns;          /* the next run's */
	uint64_t margin_used_ns;     /* the last run's */
	uint64_t late_ns;            /* the slowest arrival of the start's broadcast seen so far */
	int64_t lead_ns;             /* this rank: how long before the last start its broadcast
				      * came (INT64_MAX: not yet told to rank 0) */
	uint64_t early_ns;           /* sync point 1: how long before a timed warm-up's end it
				      * is called (rank 0's, sent with the last start) */
	int old_policy;
	struct sched_param old_param;
	bool *same_clock;            /* per rank: on rank 0's kernel (same boot_id), so on its
				      * very CLOCK_MONOTONIC: offset 0 exactly, nothing measured */
	/* stonewalling, of the current run */
	bool sw_sent;                /* this rank announced its share complete */
	int *sw_got;                 /* per rank: its announcement received */
	int sw_token;
	MPI_Request *sw_req;         /* the announcement to each rank */
	MPI_Datatype hist_type;
	MPI_Op hist_op;
	/* deadlines */
	char *const *names;          /* every rank's short hostname (iom_hosts.names) */
	uint64_t allow_ns;           /* the current run's allowance from its ready point */
	uint64_t deadline_ns;        /* this rank's clock; 0: none */
	uint32_t seq;                /* collectives entered: where a rank is, for find_lost */
	int query;                   /* this rank's query, as it travels */
	int *reply;                  /* per rank: the answer to its query, as it travels */
	MPI_Request *reply_req;
	bool lost, rank0_lost;       /* a rank was lost (rank 0 among them) */
	char lost_msg[512];
};

/* Answers the other ranks' queries (find_lost): where this rank is, its seq. */
static void serve(struct mpi_ctx *c)
{
	MPI_Status st;
	int flag = 0, q;

	while (MPI_Iprobe(MPI_ANY_SOURCE, TAG_QUERY, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS &&
	       flag) {
		int src = st.MPI_SOURCE, done = 1;

		MPI_Recv(&q, 1, MPI_INT, src, TAG_QUERY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (c->reply_req[src] != MPI_REQUEST_NULL)
			MPI_Test(&c->reply_req[src], &done, MPI_STATUS_IGNORE);
		if (!done)
			continue; /* its last answer still on the way: it asks once */
		c->reply[src] = (int)c->seq;
		MPI_Isend(&c->reply[src], 1, MPI_INT, src, TAG_REPLY, MPI_COMM_WORLD,
			  &c->reply_req[src]);
	}
}

/* Past a deadline: asks every other rank, and names those that do not answer within GRACE_NS
 * (else those still behind this rank's collective) in lost_msg; the ranks are lost. */
static void find_lost(struct mpi_ctx *c)
{
	int *ans = xcalloc((size_t)c->size, sizeof(*ans)), *got = xcalloc((size_t)c->size,
								       sizeof(*got));
	MPI_Request *rq = xcalloc((size_t)c->size, sizeof(*rq)), *sq = xcalloc((size_t)c->size,
										 sizeof(*sq));
	int left = c->size - 1;
	uint64_t end = iom_now_ns() + GRACE_NS;
	struct timespec pause = { .tv_nsec = 1000000 };
	size_t off = 0;

	c->query = (int)c->seq; /* sent to every rank: it outlives this call */
	for (int r = 0; r < c->size; r++) {
		rq[r] = sq[r] = MPI_REQUEST_NULL;
		if (r == c->rank)
			continue;
		MPI_Irecv(&ans[r], 1, MPI_INT, r, TAG_REPLY, MPI_COMM_WORLD, &rq[r]);
		MPI_Isend(&c->query, 1, MPI_INT, r, TAG_QUERY, MPI_COMM_WORLD, &sq[r]);
	}
	while (left > 0 && iom_now_ns() < end) {
		for (int r = 0; r < c->size; r++)
			if (r != c->rank && !got[r]) {
				MPI_Test(&rq[r], &got[r], MPI_STATUS_IGNORE);
				left -= got[r] != 0;
			}
		serve(c);
		nanosleep(&pause, NULL);
	}
	for (int pass = 0; pass < 2 && !off; pass++)
		for (int r = 0; r < c->size; r++) {
			/* pass 0: who did not answer; pass 1: who answered from behind */
			if (r == c->rank || (pass == 0 ? got[r] : !got[r] || ans[r] >= c->query) ||
			    off >= sizeof(c->lost_msg))
				continue;
			off += (size_t)snprintf(c->lost_msg + off, sizeof(c->lost_msg) - off,
						"%srank %d (host %s)", off ? ", " : "", r,
						c->names ? c->names[r] : "?");
			c->rank0_lost |= r == 0 && pass == 0;
		}
	if (off < sizeof(c->lost_msg))
		snprintf(c->lost_msg + off, sizeof(c->lost_msg) - off, off ?
			 " did not answer within %.0f s of the run's start (stopped, or lost): "
			 "the run fails on every rank and the job ends" :
			 "the collectives did not complete within %.0f s of the run's start",
			 (double)c->allow_ns / 1e9);
	for (int r = 0; r < c->size; r++) {
		if (rq[r] != MPI_REQUEST_NULL && !got[r]) {
			MPI_Cancel(&rq[r]);
			MPI_Request_free(&rq[r]);
		}
		if (sq[r] != MPI_REQUEST_NULL)
			MPI_Request_free(&sq[r]);
	}
	c->lost = true;
	free(ans);
	free(got);
	free(rq);
	free(sq);
}

/*
 * Completes r polling: MPI_Test (answering the other ranks' queries), then a sleep of 20 µs,
 * doubled every 16 polls up to 640 µs (a long wait for a rank still warming up costs little),
 * so a boosted controller neither waits on the workers' time slices (as a yielding one does)
 * nor takes a core from them; spun, not slept, for the first spin_ns. Past deadline (this
 * rank's clock; 0: none) the ranks that keep it waiting are found (find_lost): -ETIMEDOUT, as
 * for every later call once lost. -EIO when MPI fails.
 */
static int wait_req(struct mpi_ctx *c, MPI_Request *r, uint64_t deadline, uint64_t spin_ns)
{
	struct timespec pause = { .tv_nsec = 20000 };
	uint64_t t0 = iom_now_ns();
	int done = 0;

	if (c->lost)
		return -ETIMEDOUT;
	for (unsigned n = 1;; n++) {
		uint64_t now;

		if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		serve(c);
		now = iom_now_ns();
		if (deadline && now >= deadline) {
			find_lost(c);
			return -ETIMEDOUT;
		}
		if (now - t0 < spin_ns)
			continue;
		nanosleep(&pause, NULL);
		if (n % 16 == 0 && pause.tv_nsec < 640000)
			pause.tv_nsec *= 2;
	}
}

/* A collective's request started (ret, of the MPI_I… call) and completed within the run's
 * deadline: 0 or -errno (-ETIMEDOUT: lost). */
static int coll(struct mpi_ctx *c, int ret, MPI_Request *r)
{
	if (c->lost)
		return -ETIMEDOUT;
	c->seq++;
	return ret != MPI_SUCCESS ? -EIO : wait_req(c, r, c->deadline_ns, 0);
}

/* A transfer's deadline: the run's, and at least CHUNK_NS from now (0 outside a run). */
static uint64_t xfer_deadline(const struct mpi_ctx *c)
{
	return c->deadline_ns ? IOM_MAX(c->deadline_ns, iom_now_ns() + CHUNK_NS) : 0;
}

static int m_bcast(void *ctx, void *buf, size_t len)
{
	struct mpi_ctx *c = ctx;
	int ret = 0;

	for (size_t off = 0; off < len && ret == 0; off += CHUNK) {
		MPI_Request r;

		ret = coll(c, MPI_Ibcast((char *)buf + off, (int)IOM_MIN(len - off, (size_t)CHUNK),
					 MPI_BYTE, 0, MPI_COMM_WORLD, &r), &r);
	}
	return ret;
}

static int m_allmax(void *ctx, uint64_t *v)
{
	uint64_t in = *v;
	MPI_Request r;

	return coll(ctx, MPI_Iallreduce(&in, v, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, &r), &r);
}

static int m_gather(void *ctx, const void *mine, size_t len, void *all)
{
	MPI_Request r;

	return coll(ctx, MPI_Igather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, 0,
				     MPI_COMM_WORLD, &r), &r);
}

/* The reduction of histograms: bucket by bucket (iom_hist_merge). */
static void hist_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type;
	for (int i = 0; i < *len; i++)
		iom_hist_merge((struct iom_hist *)inout + i, (const struct iom_hist *)in + i);
}

static int m_merge_hist(void *ctx, struct iom_hist *h, size_t n)
{
	struct mpi_ctx *c = ctx;
	struct iom_hist *res = xcalloc(n, sizeof(*res));
	MPI_Request r;
	int ret;

	ret = coll(c, MPI_Ireduce(h, res, (int)n, c->hist_type, c->hist_op, 0, MPI_COMM_WORLD,
				  &r), &r);
	if (ret == 0 && c->rank == 0)
		memcpy(h, res, n * sizeof(*h));
	free(res);
	return ret;
}

/* n counters summed over the ranks into rank 0's v. */
static int m_sum_u64(void *ctx, uint64_t *v, size_t n)
{
	struct mpi_ctx *c = ctx;
	uint64_t *res = xcalloc(n, sizeof(*res));
	MPI_Request r;
	int ret;

	ret = coll(c, MPI_Ireduce(v, res, (int)n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD, &r),
		   &r);
	if (ret == 0 && c->rank == 0)
		memcpy(v, res, n * sizeof(*v));
	free(res);
	return ret;
}

/* One point-to-point message of the clock offsets: sent (send) or received, spun on. */
static int ping(struct mpi_ctx *c, bool send, uint64_t *v, int peer, int tag)
{
	MPI_Request r;
	int ret = send ? MPI_Isend(v, 1, MPI_UINT64_T, peer, tag, MPI_COMM_WORLD, &r)
		       : MPI_Irecv(v, 1, MPI_UINT64_T, peer, tag, MPI_COMM_WORLD, &r);

	return ret != MPI_SUCCESS ? -EIO : wait_req(c, &r, c->deadline_ns, SPIN_NS);
}

/* Each rank's clock offset to rank 0, by ping-pong (Cristian: the reply's time against the
 * midpoint of the round trip; of OFFSET_ROUNDS round trips the shortest, whose midpoint is the
 * surest on a loaded machine), then sent to every rank. */
#define OFFSET_ROUNDS 8
static int measure_offsets(struct mpi_ctx *c)
{
	int64_t *off = xcalloc((size_t)c->size, sizeof(*off));
	MPI_Request req;
	int ret = 0;

	for (int r = 1; r < c->size && ret == 0; r++) {
		uint64_t t, best = UINT64_MAX;

		for (int k = 0; !c->same_clock[r] && k < OFFSET_ROUNDS && ret == 0; k++) {
			if (c->rank == 0) {
				uint64_t a = iom_now_ns(), b;

				ret = ping(c, true, &a, r, 7);
				if (ret == 0)
					ret = ping(c, false, &t, r, 8);
				b = iom_now_ns();
				if (b - a < best) {
					best = b - a;
					off[r] = (int64_t)t - (int64_t)(a + (b - a) / 2);
				}
			} else if (c->rank == r) {
				ret = ping(c, false, &t, 0, 7);
				t = iom_now_ns();
				if (ret == 0)
					ret = ping(c, true, &t, 0, 8);
			}
		}
	}
	if (ret == 0)
		ret = coll(c, MPI_Ibcast(off, c->size, MPI_INT64_T, 0, MPI_COMM_WORLD, &req), &req);
	c->offset_ns = off[c->rank];
	free(off);
	return ret;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
			       .tv_nsec = (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Sync point 1 on a loaded host: the controller waits in MPI (yielding when idle) and then for
 * the agreed start while the workers run the warm-up on every core; a yielding or sleeping
 * controller gets a core back only when their time slices let it, milliseconds late. From sync
 * point 1's allreduce until the window has started (run.c's point 2, the start taken) it runs
 * as SCHED_FIFO when the process may (root), so the collectives and the start's broadcast are
 * taken as they come and its wake-ups preempt the workers (the warm-up's, unmeasured); then
 * its policy is put back. Without the privilege the sync works as well, with the scheduler's
 * latency, and the start margin (adapt_margin) grows to cover it.
 */
static void boost(struct mpi_ctx *c)
{
	struct sched_param rt = { .sched_priority = 1 };

	if (c->boosted)
		return; /* the saved policy is the one to put back */
	c->boosted = pthread_getschedparam(pthread_self(), &c->old_policy, &c->old_param) == 0 &&
		     c->old_policy == SCHED_OTHER &&
		     pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt) == 0;
}

static void unboost(struct mpi_ctx *c)
{
	if (c->boosted)
		pthread_setschedparam(pthread_self(), c->old_policy, &c->old_param);
	c->boosted = false;
}

/* Waits for the agreed start t (this rank's clock): asleep until START_SPIN_NS before it, then
 * spinning on the clock, so neither the timer's slack nor a late wake-up moves the start. */
static void wait_start(uint64_t t)
{
	if (t > START_SPIN_NS)
		sleep_until(t - START_SPIN_NS);
	while (iom_now_ns() < t)
		__asm__ __volatile__("" ::: "memory");
}

/* The message of a failed collective: who was lost, else that MPI failed; -ETIMEDOUT or -EIO. */
static int lost_err(const struct mpi_ctx *c, char *err, size_t errlen)
{
	if (c->lost)
		return iom_err(err, errlen, ETIMEDOUT, "%s", c->lost_msg);
	return iom_err(err, errlen, EIO, "MPI: the ranks lost each other");
}

/*
 * The start margin. Rank 0 names the window's start this far ahead: long enough for the
 * start's broadcast to reach every rank before it, short enough to cost a run little. Each
 * rank tells, in its next sync point's allreduce, how long before the start its broadcast
 * came (its lead); the latest arrival so far (the margin used minus the smallest lead) times
 * four, plus 1 ms, is the next margin, between START_MARGIN_MIN_NS and START_MARGIN_NS. The
 * first run's is the most; a broadcast that came late widens the margin of every run after it.
 */
static void adapt_margin(struct mpi_ctx *c, int64_t lead)
{
	int64_t late;
	uint64_t m;

	if (c->rank != 0 || lead == INT64_MAX)
		return;
	late = (int64_t)c->margin_used_ns - lead; /* after rank 0 named the start */
	if (late > 0)
		c->late_ns = IOM_MAX(c->late_ns, (uint64_t)late);
	m = 1000000u + 4 * c->late_ns;
	c->margin_ns = IOM_MIN(IOM_MAX(m, START_MARGIN_MIN_NS), START_MARGIN_NS);
}

/*
 * Sync point 0 or 1's collectives and wait, as m_sync says; polled (wait_req), and boosted
 * (boost) from its allreduce on when boost_it: a controller that sleeps between polls while
 * the warm-up's workers hold every core is woken milliseconds late without it, and takes the
 * start's broadcast after the start (4 ms late on this 2-core VM). Its waits sleep between
 * polls (a clock ping spins SPIN_NS at most), so SCHED_FIFO ranks sharing cores do not
 * starve each other.
 *
 * The early start. Point 1 comes early_ns before a timed warm-up's end (run.c), and the
 * window starts at the latest of the ranks' ends (not_before, in rank 0's clock through the
 * offsets of point 0) or a start margin after rank 0 names it, whichever is later: the
 * agreement and the margin pass while the warm-up goes on, not after it. The next early_ns
 * is this margin plus how long rank 0 took from arriving to naming the start (the ranks'
 * arrivals and the clock pings), sent with the start so every rank comes as early.
 */
static int sync_body(struct mpi_ctx *c, unsigned point, uint64_t not_before, bool boost_it,
		     int mine, char *err, size_t errlen)
{
	MPI_Request req;
	uint64_t t_in = iom_now_ns();
	/* the lowest rank that is not ok, the smallest lead of the last start, and minus the
	 * latest warm-up's end (rank 0's clock; 0: none) */
	int64_t in[3] = { mine, c->lead_ns,
			  not_before ? -((int64_t)not_before - c->offset_ns) : 0 }, out[3];
	uint64_t start[2];

	if (boost_it)
		boost(c);
	if (coll(c, MPI_Iallreduce(in, out, 3, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD, &req),
		 &req) < 0)
		return lost_err(c, err, errlen);
	/* a rank that failed (out[0] < size) sits the run out: it arrives here only to keep the
	 * collectives in step, and the aggregate names it; the others measure on */
	c->lead_ns = INT64_MAX;
	adapt_margin(c, out[1]);
	if (measure_offsets(c) < 0)
		return c->lost ? lost_err(c, err, errlen)
			       : iom_err(err, errlen, EIO, "MPI: cannot measure the clock offsets");
	if (point == 1) {
		/* the agreed start, in rank 0's clock (each rank waits for it in its own), and the
		 * next early_ns */
		uint64_t now = iom_now_ns(), ends = out[2] < 0 ? (uint64_t)-out[2] : 0;

		start[0] = IOM_MAX(now + c->margin_ns, ends);
		start[1] = IOM_MIN(c->margin_ns + (now - t_in), EARLY_MAX_NS);
		c->margin_used_ns = start[0] - now;
		if (coll(c, MPI_Ibcast(start, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD, &req), &req) < 0)
			return lost_err(c, err, errlen);
		c->early_ns = start[1];
		c->start_ns = (uint64_t)((int64_t)start[0] + c->offset_ns);
		c->lead_ns = (int64_t)c->start_ns - (int64_t)iom_now_ns();
		wait_start(c->start_ns);
	}
	return 0;
}

static int m_sync(void *ctx, unsigned point, uint64_t not_before, bool ok, char *err,
		  size_t errlen)
{
	struct mpi_ctx *c = ctx;
	int ret;

	if (point >= 2) { /* the window has started: no collective */
		unboost(c);
		return 0;
	}
	/* mine: the lowest rank that is not ok */
	ret = sync_body(c, point, not_before, point == 1 && ok, ok ? c->size : c->rank, err,
			errlen);
	if (ret < 0 || !ok)
		unboost(c);
	return ret;
}

static uint64_t m_early(void *ctx)
{
	return ((struct mpi_ctx *)ctx)->early_ns;
}

static uint64_t m_start(void *ctx)
{
	return ((struct mpi_ctx *)ctx)->start_ns;
}

static int64_t m_offset(void *ctx)
{
	return ((struct mpi_ctx *)ctx)->offset_ns;
}

/* A transfer's message of n bytes to (send) or from peer, within xfer_deadline. */
static int xfer(struct mpi_ctx *c, bool send, void *buf, int n, int peer, int tag)
{
	MPI_Request r;
	int ret;

	if (c->lost)
		return -ETIMEDOUT;
	ret = send ? MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)
		   : MPI_Irecv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
	return ret != MPI_SUCCESS ? -EIO : wait_req(c, &r, xfer_deadline(c), 0);
}

static int m_send_file(void *ctx, const char *path)
{
	struct mpi_ctx *c = ctx;
	char *data = NULL;
	size_t len = 0;
	int64_t n = -1;
	int ret;

	if (path && iom_own_read(NULL, path, IOM_OWN_READ, IOM_OWN_CAP_TRACE, &data, &len, NULL,
				 0) == 0)
		n = (int64_t)len;
	ret = xfer(c, true, &n, (int)sizeof(n), 0, 9);
	for (size_t off = 0; ret == 0 && n > 0 && off < len; off += CHUNK)
		ret = xfer(c, true, data + off, (int)IOM_MIN(len - off, (size_t)CHUNK), 0, 10);
	free(data);
	return ret;
}

static int m_recv_file(void *ctx, unsigned from, const struct iom_own_dir *rd, const char *path,
		       bool *got)
{
	struct mpi_ctx *c = ctx;
	int64_t n;
	char *data;
	int ret = 0;

	*got = false;
	if ((ret = xfer(c, false, &n, (int)sizeof(n), (int)from, 9)) < 0)
		return ret;
	if (n < 0)
		return 0;
	data = xmalloc((size_t)n + 1);
	for (size_t off = 0; off < (size_t)n; off += CHUNK)
		if ((ret = xfer(c, false, data + off, (int)IOM_MIN((size_t)n - off, (size_t)CHUNK),
				(int)from, 10)) < 0) {
			free(data);
			return ret;
		}
	ret = rd ? iom_own_write_atomic(rd, path, data, (size_t)n, NULL, 0) : -ENOENT;
	*got = ret == 0;
	free(data);
	return ret;
}

#define TAG_STONEWALL 11

static bool m_stonewall(void *ctx, bool self_done)
{
	struct mpi_ctx *c = ctx;
	int flag = 0;
	MPI_Status st;

	if (self_done && !c->sw_sent) {
		for (int r = 0; r < c->size; r++)
			if (r == c->rank)
				c->sw_req[r] = MPI_REQUEST_NULL;
			else
				MPI_Isend(&c->sw_token, 1, MPI_INT, r, TAG_STONEWALL, MPI_COMM_WORLD,
					  &c->sw_req[r]);
		c->sw_sent = true;
		return false;
	}
	if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_STONEWALL, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS ||
	    !flag)
		return false;
	MPI_Recv(&flag, 1, MPI_INT, st.MPI_SOURCE, TAG_STONEWALL, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	c->sw_got[st.MPI_SOURCE] = 1;
	return true;
}

/* After a run: every rank learns who announced, receives what it has not yet, and waits for
 * its own announcements to be delivered; the next run starts clean. */
static int m_stonewall_end(void *ctx)
{
	struct mpi_ctx *c = ctx;
	int sent = c->sw_sent, *all = xcalloc((size_t)c->size, sizeof(*all)), ret;
	MPI_Request req;

	unboost(c); /* a run that ended between its sync point 1 and its window */
	ret = coll(c, MPI_Iallgather(&sent, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &req),
		   &req);
	for (int r = 0; ret == 0 && r < c->size; r++)
		if (r != c->rank && all[r] && !c->sw_got[r]) {
			int token;

			ret = MPI_Irecv(&token, 1, MPI_INT, r, TAG_STONEWALL, MPI_COMM_WORLD,
					&req) != MPI_SUCCESS ? -EIO :
			      wait_req(c, &req, c->deadline_ns, 0);
		}
	for (int r = 0; ret == 0 && c->sw_sent && r < c->size; r++)
		if (c->sw_req[r] != MPI_REQUEST_NULL)
			ret = wait_req(c, &c->sw_req[r], c->deadline_ns, 0);
	c->sw_sent = false;
	memset(c->sw_got, 0, (size_t)c->size * sizeof(*c->sw_got));
	free(all);
	return ret;
}

static void m_deadline(void *ctx, uint64_t allow_ns)
{
	struct mpi_ctx *c = ctx;

	c->allow_ns = allow_ns;
	if (!allow_ns)
		c->deadline_ns = 0;
}

static int m_ready(void *ctx, char *err, size_t errlen)
{
	struct mpi_ctx *c = ctx;
	MPI_Request req;
	int ret;

	c->deadline_ns = 0; /* every rank's precondition: as long as it takes */
	ret = coll(c, MPI_Ibarrier(MPI_COMM_WORLD, &req), &req);
	if (ret < 0)
		return lost_err(c, err, errlen);
	c->deadline_ns = c->allow_ns ? iom_now_ns() + c->allow_ns : 0;
	return 0;
}

static const char *m_lost(void *ctx)
{
	const struct mpi_ctx *c = ctx;

	return c->lost ? c->lost_msg : NULL;
}

static const struct iom_hosts_ops mpi_ops = {
	.bcast = m_bcast, .allmax = m_allmax, .gather = m_gather, .merge_hist = m_merge_hist,
	.sum_u64 = m_sum_u64,
	.sync = m_sync, .early_ns = m_early, .offset_ns = m_offset, .send_file = m_send_file,
	.recv_file = m_recv_file, .stonewall = m_stonewall, .stonewall_end = m_stonewall_end,
	.start_ns = m_start, .deadline = m_deadline, .ready = m_ready, .lost = m_lost,
};

int iom_host_mpi_start(int *argc, char ***argv, struct iom_hosts *h)
{
	struct mpi_ctx *c = xcalloc(1, sizeof(*c));
	char *dot;
	int provided;

	memset(h, 0, sizeof(*h));
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		free(c);
		return -EIO;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->size);
	c->margin_ns = START_MARGIN_NS;
	c->early_ns = START_MARGIN_NS + 1000000u;
	c->lead_ns = INT64_MAX;
	MPI_Type_contiguous((int)sizeof(struct iom_hist), MPI_BYTE, &c->hist_type);
	MPI_Type_commit(&c->hist_type);
	MPI_Op_create(hist_reduce, 1, &c->hist_op);
	{
		/* which ranks run on rank 0's kernel: they share its monotonic clock */
		char id[40] = "", *all, *text = NULL;

		if (iom_read_file("/proc/sys/kernel/random/boot_id", &text, NULL) == 0)
			snprintf(id, sizeof(id), "%s", text);
		free(text);
		all = xcalloc((size_t)c->size, sizeof(id));
		MPI_Allgather(id, sizeof(id), MPI_CHAR, all, sizeof(id), MPI_CHAR, MPI_COMM_WORLD);
		c->same_clock = xcalloc((size_t)c->size, sizeof(*c->same_clock));
		for (int r = 0; r < c->size; r++)
			c->same_clock[r] = id[0] && memcmp(all + (size_t)r * sizeof(id), all,
							   sizeof(id)) == 0;
		free(all);
	}
	h->rank = (unsigned)c->rank;
	h->size = (unsigned)c->size;
	c->sw_got = xcalloc((size_t)c->size, sizeof(*c->sw_got));
	c->sw_req = xcalloc((size_t)c->size, sizeof(*c->sw_req));
	c->reply = xcalloc((size_t)c->size, sizeof(*c->reply));
	c->reply_req = xcalloc((size_t)c->size, sizeof(*c->reply_req));
	for (int r = 0; r < c->size; r++)
		c->reply_req[r] = MPI_REQUEST_NULL;
	if (gethostname(h->host, sizeof(h->host)) < 0)
		snprintf(h->host, sizeof(h->host), "localhost");
	h->host[sizeof(h->host) - 1] = '\0';
	if ((dot = strchr(h->host, '.')))
		*dot = '\0';
	h->ops = &mpi_ops;
	h->ctx = c;
	{
		/* every rank's short hostname, on every rank (the placement's labels) */
		char *all = xcalloc((size_t)c->size, sizeof(h->host));

		if (MPI_Allgather(h->host, (int)sizeof(h->host), MPI_CHAR, all,
				  (int)sizeof(h->host), MPI_CHAR, MPI_COMM_WORLD) != MPI_SUCCESS) {
			free(all);
			return -EIO;
		}
		h->names = xcalloc((size_t)c->size, sizeof(*h->names));
		for (int r = 0; r < c->size; r++)
			h->names[r] = xstrdup(all + (size_t)r * sizeof(h->host));
		c->names = h->names;
		free(all);
	}
	if (h->rank > 0) {
		const char *tmp = getenv("TMPDIR");

		char prefix[64], e[IOM_ERRLEN];

		/* a fresh directory of its own (mkdtemp, 0700), never one someone made before */
		snprintf(prefix, sizeof(prefix), "iomatrix-rank%u-%ld", h->rank, (long)getpid());
		h->private_dir = iom_own_mkdtemp(tmp && *tmp ? tmp : "/tmp", prefix, e, sizeof(e));
		if (!h->private_dir) {
			fprintf(stderr, "iomatrix: rank %u: %s\n", h->rank, e);
			return -EIO;
		}
	}
	return 0;
}

/* Removes a follower's private directory (its traces are sent, its logs worthless), through
 * descriptors, never following a link. */
static void remove_tree(const char *dir)
{
	int ret;

	if (!dir)
		return;
	if ((ret = iom_own_rmtree(dir)) < 0)
		fprintf(stderr, "iomatrix: cannot remove '%s': %s\n", dir, strerror(-ret));
}

void iom_host_mpi_finish(struct iom_hosts *h, int code)
{
	struct mpi_ctx *c = h->ctx;

	if (!c)
		return;
	remove_tree(h->private_dir);
	free(h->private_dir);
	if (c->lost) {
		/* a lost rank: MPI_Finalize would wait for it. A follower gives rank 0 the time to
		 * record the run (its MPI_Abort ends the job), answering queries meanwhile; then
		 * any rank ends the job, the stopped or lost one with it */
		struct timespec pause = { .tv_nsec = 10000000 };
		uint64_t end = iom_now_ns() + LOST_WAIT_NS;

		fflush(NULL);
		while (c->rank > 0 && !c->rank0_lost && iom_now_ns() < end) {
			serve(c);
			nanosleep(&pause, NULL);
		}
		MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
	}
	for (unsigned r = 0; h->names && r < h->size; r++)
		free(h->names[r]);
	free(h->names);
	h->names = NULL;
	(void)code; /* every rank finalizes, whatever its exit code: mpirun reports a non-zero one */
	MPI_Op_free(&c->hist_op);
	MPI_Type_free(&c->hist_type);
	MPI_Finalize();
	free(c->same_clock);
	free(c->sw_got);
	free(c->sw_req);
	free(c->reply);
	free(c->reply_req);
	free(c);
	h->ctx = NULL;
}
