/*
 * host_mpi — the MPI host backend of iomatrix-mpi (hosts.h): the only file that includes
 * <mpi.h>. Built only by `make mpi`, with the flags of `mpicc --showme`.
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
#include "util.h"

#define START_MARGIN_NS 10000000ull  /* the window starts this long after the barrier */
#define START_SPIN_NS 200000ull      /* … the last of it spun, not slept: no timer slack */
#define CHUNK (16u << 20)

struct mpi_ctx {
	int rank, size;
	int64_t offset_ns;           /* this rank's monotonic clock minus rank 0's */
	uint64_t start_ns;           /* the agreed start of the last window, in this rank's clock */
	bool boosted;                /* SCHED_FIFO from sync point 1 to the window's start */
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
};

static int m_bcast(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	for (size_t off = 0; off < len || (len == 0 && off == 0); off += CHUNK) {
		int n = (int)IOM_MIN(len - off, (size_t)CHUNK);

		if (len && MPI_Bcast((char *)buf + off, n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
			return -EIO;
		if (!len)
			break;
	}
	return 0;
}

static int m_allmax(void *ctx, uint64_t *v)
{
	uint64_t in = *v;

	(void)ctx;
	return MPI_Allreduce(&in, v, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS ?
	       0 : -EIO;
}

static int m_gather(void *ctx, const void *mine, size_t len, void *all)
{
	(void)ctx;
	return MPI_Gather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) ==
	       MPI_SUCCESS ? 0 : -EIO;
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
	int ret;

	ret = MPI_Reduce(h, res, (int)n, c->hist_type, c->hist_op, 0, MPI_COMM_WORLD);
	if (ret == MPI_SUCCESS && c->rank == 0)
		memcpy(h, res, n * sizeof(*h));
	free(res);
	return ret == MPI_SUCCESS ? 0 : -EIO;
}

/* Each rank's clock offset to rank 0, by ping-pong (Cristian: the reply's time against the
 * midpoint of the round trip; of OFFSET_ROUNDS round trips the shortest, whose midpoint is the
 * surest on a loaded machine), then sent to every rank. */
#define OFFSET_ROUNDS 8
static int measure_offsets(struct mpi_ctx *c)
{
	int64_t *off = xcalloc((size_t)c->size, sizeof(*off));
	int ret = MPI_SUCCESS;

	for (int r = 1; r < c->size && ret == MPI_SUCCESS; r++) {
		uint64_t t, best = UINT64_MAX;

		for (int k = 0; !c->same_clock[r] && k < OFFSET_ROUNDS && ret == MPI_SUCCESS; k++) {
			if (c->rank == 0) {
				uint64_t a = iom_now_ns(), b;

				ret = MPI_Send(&a, 1, MPI_UINT64_T, r, 7, MPI_COMM_WORLD);
				if (ret == MPI_SUCCESS)
					ret = MPI_Recv(&t, 1, MPI_UINT64_T, r, 8, MPI_COMM_WORLD,
						       MPI_STATUS_IGNORE);
				b = iom_now_ns();
				if (b - a < best) {
					best = b - a;
					off[r] = (int64_t)t - (int64_t)(a + (b - a) / 2);
				}
			} else if (c->rank == r) {
				ret = MPI_Recv(&t, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD,
					       MPI_STATUS_IGNORE);
				t = iom_now_ns();
				if (ret == MPI_SUCCESS)
					ret = MPI_Send(&t, 1, MPI_UINT64_T, 0, 8, MPI_COMM_WORLD);
			}
		}
	}
	if (ret == MPI_SUCCESS)
		ret = MPI_Bcast(off, c->size, MPI_INT64_T, 0, MPI_COMM_WORLD);
	c->offset_ns = off[c->rank];
	free(off);
	return ret == MPI_SUCCESS ? 0 : -EIO;
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
 * point 1's clock offsets (whose blocking sends and receives spin in Open MPI) until the window
 * has started (run.c's point 2, the start taken) it runs as SCHED_FIFO when the process may
 * (root), so the start's broadcast is taken as it comes and its wake-up preempts the workers
 * (the warm-up's, unmeasured); then its policy is put back. Without the privilege the sync
 * works as well, with the scheduler's latency.
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

/* Completes r polling: MPI_Test, then a sleep of 20 µs, doubled every 16 polls up to 640 µs (a
 * long wait for a rank still warming up costs little), so a boosted controller neither waits
 * on the workers' time slices (as a yielding one does) nor takes a core from them. */
static int poll_req(MPI_Request *r)
{
	struct timespec pause = { .tv_nsec = 20000 };
	int done = 0;

	for (unsigned n = 1;; n++) {
		if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		nanosleep(&pause, NULL);
		if (n % 16 == 0 && pause.tv_nsec < 640000)
			pause.tv_nsec *= 2;
	}
}

/* Sync point 0 or 1's collectives and wait, as m_sync says; point 1 polled (poll_req), and
 * boosted (boost) from the clock offsets on when boost_it: the offsets' blocking sends and
 * receives spin in Open MPI, which three SCHED_FIFO ranks on two cores must not do. */
static int sync_body(struct mpi_ctx *c, unsigned point, bool boost_it, int mine, char *err,
		     size_t errlen)
{
	MPI_Request req;
	int first;
	uint64_t start;

	if (MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS || poll_req(&req) < 0)
		return iom_err(err, errlen, EIO, "MPI: the ranks lost each other");
	/* a rank that failed (first < size) sits the run out: it arrives here only to keep the
	 * collectives in step, and the aggregate names it; the others measure on */
	(void)first;
	if (measure_offsets(c) < 0)
		return iom_err(err, errlen, EIO, "MPI: cannot measure the clock offsets");
	if (boost_it)
		boost(c);
	if (point == 1) {
		/* the agreed start, in rank 0's clock; each rank waits for it in its own */
		start = iom_now_ns() + START_MARGIN_NS;
		if (MPI_Ibcast(&start, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
		    poll_req(&req) < 0)
			return iom_err(err, errlen, EIO, "MPI: the ranks lost each other");
		c->start_ns = (uint64_t)((int64_t)start + c->offset_ns);
		wait_start(c->start_ns);
	}
	return 0;
}

static int m_sync(void *ctx, unsigned point, bool ok, char *err, size_t errlen)
{
	struct mpi_ctx *c = ctx;
	int ret;

	if (point >= 2) { /* the window has started: no collective */
		unboost(c);
		return 0;
	}
	/* mine: the lowest rank that is not ok */
	ret = sync_body(c, point, point == 1 && ok, ok ? c->size : c->rank, err, errlen);
	if (ret < 0 || !ok)
		unboost(c);
	return ret;
}

static uint64_t m_start(void *ctx)
{
	return ((struct mpi_ctx *)ctx)->start_ns;
}

static int64_t m_offset(void *ctx)
{
	return ((struct mpi_ctx *)ctx)->offset_ns;
}

static int m_send_file(void *ctx, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	int64_t n = -1;

	(void)ctx;
	if (path && iom_read_file(path, &data, &len) == 0)
		n = (int64_t)len;
	if (MPI_Send(&n, 1, MPI_INT64_T, 0, 9, MPI_COMM_WORLD) != MPI_SUCCESS)
		goto fail;
	for (size_t off = 0; n > 0 && off < len; off += CHUNK)
		if (MPI_Send(data + off, (int)IOM_MIN(len - off, (size_t)CHUNK), MPI_BYTE, 0, 10,
			     MPI_COMM_WORLD) != MPI_SUCCESS)
			goto fail;
	free(data);
	return 0;
fail:
	free(data);
	return -EIO;
}

static int m_recv_file(void *ctx, unsigned from, const char *path, bool *got)
{
	int64_t n;
	char *data;
	int ret = 0;

	(void)ctx;
	*got = false;
	if (MPI_Recv(&n, 1, MPI_INT64_T, (int)from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return -EIO;
	if (n < 0)
		return 0;
	data = xmalloc((size_t)n + 1);
	for (size_t off = 0; off < (size_t)n; off += CHUNK)
		if (MPI_Recv(data + off, (int)IOM_MIN((size_t)n - off, (size_t)CHUNK), MPI_BYTE,
			     (int)from, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			free(data);
			return -EIO;
		}
	if (iom_write_file_atomic(path, data, (size_t)n) < 0)
		ret = -(errno ? errno : EIO);
	else
		*got = true;
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

	unboost(c); /* a run that ended between its sync point 1 and its window */
	ret = MPI_Allgather(&sent, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
	for (int r = 0; ret == MPI_SUCCESS && r < c->size; r++)
		if (r != c->rank && all[r] && !c->sw_got[r]) {
			int token;

			ret = MPI_Recv(&token, 1, MPI_INT, r, TAG_STONEWALL, MPI_COMM_WORLD,
				       MPI_STATUS_IGNORE);
		}
	if (ret == MPI_SUCCESS && c->sw_sent)
		ret = MPI_Waitall(c->size, c->sw_req, MPI_STATUSES_IGNORE);
	c->sw_sent = false;
	memset(c->sw_got, 0, (size_t)c->size * sizeof(*c->sw_got));
	free(all);
	return ret == MPI_SUCCESS ? 0 : -EIO;
}

static const struct iom_hosts_ops mpi_ops = {
	.bcast = m_bcast, .allmax = m_allmax, .gather = m_gather, .merge_hist = m_merge_hist,
	.sync = m_sync, .offset_ns = m_offset, .send_file = m_send_file,
	.recv_file = m_recv_file, .stonewall = m_stonewall, .stonewall_end = m_stonewall_end,
	.start_ns = m_start,
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
		free(all);
	}
	if (h->rank > 0) {
		const char *tmp = getenv("TMPDIR");

		h->private_dir = xasprintf("%s/iomatrix-rank%u-%ld", tmp && *tmp ? tmp : "/tmp",
					   h->rank, (long)getpid());
		if (iom_mkdir_p(h->private_dir) < 0) {
			free(h->private_dir);
			h->private_dir = NULL;
			return -errno;
		}
	}
	return 0;
}

/* Removes a follower's private directory (its traces are sent, its logs worthless). */
static void remove_tree(const char *dir)
{
	char *cmd;

	if (!dir || strncmp(dir, "/", 1) != 0 || !strstr(dir, "/iomatrix-rank"))
		return;
	cmd = xasprintf("rm -rf -- '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "iomatrix: cannot remove '%s'\n", dir);
	free(cmd);
}

void iom_host_mpi_finish(struct iom_hosts *h, int code)
{
	struct mpi_ctx *c = h->ctx;

	if (!c)
		return;
	remove_tree(h->private_dir);
	free(h->private_dir);
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
	free(c);
	h->ctx = NULL;
}
