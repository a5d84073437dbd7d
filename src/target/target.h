/* SPDX-License-Identifier: MIT */
/*
 * target — where the I/O goes: scratch files and block devices. Creates and fills scratch files
 * (incompressible data, marked as iomatrix's own), refuses what the user did not mark as
 * expendable (target_safe.c: the write checks of block devices), and opens targets for the
 * engines. What is known of the device under a target comes from the room below it (device.h).
 */
#ifndef IOM_TARGET_H
#define IOM_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "matrix/matrix.h"
#include "target_safe.h"

/* The extended attribute that marks a scratch file as iomatrix's own, and its value's prefix. */
#define IOM_TARGET_MARK_XATTR "user.iomatrix"
#define IOM_TARGET_MARK_PREFIX "iomatrix scratch v1"

/*
 * What a target was when it was prepared, re-checked at every iom_target_open(): a device name
 * (/dev/loop10, /dev/sdb) can be given to another disk within minutes, and a scratch path can be
 * replaced by a link to someone else's file.
 */
struct iom_target_identity {
	uint64_t dev, ino;    /* scratch file: st_dev, st_ino */
	uint64_t btime_ns;    /* scratch file: its birth time (an inode number is reused), 0 when
			       * the filesystem keeps none */
	uint64_t rdev;        /* block device: st_rdev */
	uint64_t diskseq;     /* block device: the kernel's disk sequence number, 0 when unknown */
	uint64_t bytes;       /* block device: its size */
	bool marked;          /* scratch file: carried iomatrix's mark */
	bool writable;        /* block device: passed the write checks (prepared for writing) */
};

struct iom_target_info {
	const struct iom_target *t;
	char *path;           /* t->path with symbolic links resolved (absolute) */
	bool is_block;        /* the path is a block device */
	uint64_t region;      /* bytes of the I/O region [0, region) */
	bool filled;          /* this prepare wrote data into the scratch file (created, extended,
			       * or overwritten); false when an existing one was reused as is */
	struct iom_device_facts facts;
	char *controller;     /* the controller label: the target's, or facts.driver for "auto";
			       * NULL when neither is known (tmpfs) */
	volatile sig_atomic_t *stop; /* during iom_target_prepare_stoppable only: its stop flag */
	struct iom_target_identity id;
	/* several paths: a target with paths = [ … ]: this info is paths[0], and more[k] is
	 * paths[k + 1], prepared, pinned and opened as a one-path target whose t is view[k] (a
	 * copy of the target with that path; owned, its strings borrowed). nmore 0: one path. */
	struct iom_target_info *more;
	struct iom_target *view;
	size_t nmore;
};

/* Whether the existing regular file at path carries iomatrix's scratch mark (below): 1 when
 * it does, 0 when not, -errno when it cannot be opened. What `check` asks of an existing file
 * at a scratch path before any run refuses it. */
int iom_target_file_marked(const char *path);

/*
 * Gets a target ready: creates a missing scratch file at its size and fills it with
 * incompressible data, or checks the mark of an existing one (refusing an unmarked file unless
 * overwrite is set); for a block device, checks that writing is allowed when will_write is set
 * (destructive, not mounted, no holders, no partitions, no signature). Reads device facts and
 * pins the target's identity (info->id). On failure returns -errno with a message naming the
 * path and what was found in err.
 *
 * Links: a symbolic link to a block device is that device (/dev/disk/by-id/… names are links);
 * info->path is then the device node it resolves to. A scratch path that is a symbolic link, or
 * a file with more than one hard link, is refused, overwrite = true included: iomatrix writes a
 * scratch file only under its own, single name. Links among the directories above it are
 * resolved once, here.
 *
 * Scratch files: the mark is the xattr IOM_TARGET_MARK_XATTR = "iomatrix scratch v1 size=N",
 * N the bytes known to be filled; where the filesystem refuses user xattrs it lives in a sidecar
 * file "DIR/.NAME.iomatrix" that also records the file's inode and birth time. A marked file
 * shorter than size (or whose fill was interrupted) is extended by filling from N to size; a
 * longer one is reused as is (the region is [0, size), nothing is truncated). With size 0 a
 * marked file's filled length is the region. info is the caller's; release it with
 * iom_target_info_release() whatever the result.
 */
/*
 * Several paths: a target with paths = [ … ] is every path prepared in turn as above, after
 * a first pass over all of them that writes nothing: each path must resolve as a single path
 * does (a symbolic link to a file refused), an existing file must have one link and carry the
 * mark (or overwrite be set), all must be of one kind (all files or all devices), and no two
 * may be the same file or device. The message names the path.
 */
int iom_target_prepare(const struct iom_target *t, bool will_write, struct iom_target_info *info,
		       char *err, size_t errlen);
/*
 * iom_target_prepare that stops a scratch file's fill within about a second of *stop becoming
 * set (stop may be NULL): what was written is synced and the mark advanced to it, the file is
 * kept, and it returns -EINTR with "the fill of scratch file '…' was stopped at N of M bytes
 * …"; the next prepare fills on from N.
 */
int iom_target_prepare_stoppable(const struct iom_target *t, bool will_write,
				 volatile sig_atomic_t *stop, struct iom_target_info *info,
				 char *err, size_t errlen);
void iom_target_info_release(struct iom_target_info *info);

/* several paths: the info of path p of a prepared target (0: info itself; p < 1 + info->nmore). */
const struct iom_target_info *iom_target_info_path(const struct iom_target_info *info, size_t p);

/*
 * Opens a prepared target for I/O: O_RDWR or O_RDONLY, O_DIRECT when direct, O_CLOEXEC,
 * O_NOFOLLOW, and O_NOATIME where allowed. The opened descriptor is checked against info->id
 * (the same device: st_rdev, disk sequence number and size; the same scratch file: st_dev,
 * st_ino, a single link, its mark, not shorter than the region). A device opened for writing is
 * opened O_EXCL, so that the kernel refuses mounts (and other exclusive users) for as long as
 * the caller keeps the fd, and the write checks of iom_target_check_writable() are repeated on
 * that fd. Returns an fd the caller closes, or -errno with err: -ESTALE when the target is no
 * longer what was prepared or now holds data (err says what changed, e.g. "'/dev/loop10' now
 * carries an ext4 filesystem; it held none when the sweep started"), after which no run should
 * use the target again.
 */
int iom_target_open(const struct iom_target_info *info, bool direct, bool will_write, char *err,
		    size_t errlen);
/*
 * As iom_target_open(), and with dsync (and will_write) the descriptor has O_DSYNC: every write
 * through it is on stable media when it completes (the kernel sends an O_DIRECT write to a block
 * device with FUA, which a device without FUA turns into the write and a cache flush; a file's
 * filesystem syncs the written range and flushes the device; a buffered write is written back
 * and flushed before it returns).
 */
int iom_target_open_sync(const struct iom_target_info *info, bool direct, bool will_write,
			 bool dsync, char *err, size_t errlen);

/* A fill of an open target: bytes of incompressible data written sequentially from from. */
struct iom_target_fill {
	uint64_t from;          /* the first offset, rounded down to 4096 */
	uint64_t bytes;         /* how many bytes to write */
	uint64_t region;        /* the writes wrap to 0 at region; 0: no wrapping */
	uint32_t chunk;         /* bytes per write, a multiple of 4096; 0: 1 MiB */
	uint64_t seed;          /* of the data (pseudo-random, a new block every chunk) */
	uint32_t data;          /* what it writes: the data key's value (model.h enum iom_data
				 * and its percentage); 0: random */
	bool stamp;             /* the first 8 bytes of every 4 KiB are a hash of its position in
				 * the fill, so that no two 4 KiB of it are alike */
	bool direct;            /* O_DIRECT where the target takes it (set on fd for the fill);
				 * buffered otherwise, from an unaligned write on, synced and
				 * dropped from the page cache every 256 MiB */
	volatile sig_atomic_t *stop; /* when it becomes set, the fill stops between two writes */
	/* Called at most every 250 ms while it goes on; may be NULL. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	/* Called after every checkpoint_every bytes, with the offset reached (not at the end);
	 * non-zero stops the fill with that return. May be NULL. */
	int (*checkpoint)(void *arg, int fd, uint64_t off);
	uint64_t checkpoint_every;
	void *arg;
};

/* Where and why a fill ended. */
struct iom_target_fill_end {
	uint64_t done;          /* bytes written */
	uint64_t off;           /* the offset of the next write (or of the one that failed) */
	enum { IOM_FILL_DONE, IOM_FILL_STOPPED, IOM_FILL_WRITE, IOM_FILL_NOTHING, IOM_FILL_NOMEM,
	       IOM_FILL_CHECKPOINT } failed;
};

/*
 * Writes the fill f through fd, a descriptor of the target open for writing that the caller has
 * checked is the target (iom_target_open()): the only way iomatrix fills a target, for scratch
 * files at their preparation and for a precondition. Nothing is synced at the end (the caller
 * chooses fsync or fdatasync); fd's file status flags are as they were. 0, or -errno with end
 * saying where and why (STOPPED: -EINTR; WRITE: pwrite's -errno, -EINVAL for a chunk not a
 * multiple of 4096; NOTHING: a write wrote nothing, -EIO; NOMEM: -ENOMEM for the buffer;
 * CHECKPOINT: the callback's return). No message: the caller words it.
 */
int iom_target_fill(int fd, const struct iom_target_fill *f, struct iom_target_fill_end *end);

/*
 * For a device that iomatrix reaches by its path between runs (a filesystem target's device,
 * made anew at each visit): its identity now (rdev, disk sequence number, size) into id, and
 * later the check that path is still that device (-ESTALE with what changed in err; a device
 * gone is a change too). 0, or -errno with err.
 */
int iom_target_device_pin(const char *path, struct iom_target_identity *id, char *err,
			  size_t errlen);
int iom_target_device_check(const char *path, const struct iom_target_identity *id, char *err,
			    size_t errlen);


#endif
