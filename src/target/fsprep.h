/* SPDX-License-Identifier: MIT */
/*
 * fsprep — the filesystem as a dimension: on a block device the user marked destructive, make a
 * filesystem (mkfs.ext4, mkfs.xfs, mkfs.btrfs, or "raw": none), mount it on a private
 * directory, and unmount it afterwards.
 *
 * Safety: every mkfs (and the wipe before "raw") first passes the device safety checks of
 * target.h. The one exception they allow is a filesystem iomatrix made itself in this study:
 * each mkfs gets a UUID iomatrix generates and the label "iom-" + its first 8 hex digits, which
 * the caller records (in the journal, iom_fs_made_format; best before the mkfs, with
 * iom_fs_new_uuid and opts.uuid) and hands back in own_uuids before the next mkfs; a filesystem
 * is recognised as our own only when both its UUID and its label match.
 * (The label is 12 characters because XFS allows no more; ext4 allows 16.)
 *
 * Programs run through proc.h (iom_proc_run): no shell, a timeout, output to a log.
 */
#ifndef IOM_FSPREP_H
#define IOM_FSPREP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

#define IOM_FS_UUID_LEN 36
#define IOM_FS_LABEL_PREFIX "iom-"

/* Returned by iom_fs_unmount when it did what it could but not all (msg says what): not a
 * failure, a warning. */
#define IOM_FS_NOTE 1

/* What iom_fs_make made; "raw" has empty uuid and label. */
struct iom_own_dir;

struct iom_fs_made {
	char fstype[8];                  /* "ext4", "xfs", "btrfs", "raw" */
	char uuid[IOM_FS_UUID_LEN + 1];  /* "0b5e…-…" */
	char label[16];                  /* "iom-0b5e12ab" */
};

/* The filesystem types iomatrix can make (iom_fs_types, iom_fs_types_text) and their check
 * (iom_fs_check_type) are the matrix's vocabulary: keys.h. */

/* The Debian package that holds mkfs for fstype ("e2fsprogs", "xfsprogs", "btrfs-progs"), or
 * NULL for raw and unknown types. */
const char *iom_fs_package(const char *fstype);

/*
 * Finds mkfs.<fstype> (or another tool such as "wipefs" when fstype is NULL and tool is given)
 * in search_path (a PATH-style list; NULL: $PATH, then /usr/local/sbin:/usr/sbin:/sbin). *path
 * gets a new string the caller frees. 0, or -ENOENT with "mkfs.xfs is not installed (install
 * the package xfsprogs)". Lets `iomatrix check` report a missing tool before a night starts.
 */
int iom_fs_tool_find(const char *fstype, const char *tool, const char *search_path, char **path,
		     char *err, size_t errlen);

struct iom_fs_opts {
	const char *mkfs_options;   /* extra mkfs arguments, split at white space (no quoting);
				     * NULL: none */
	const char *const *own_uuids; /* NULL-terminated: UUIDs of filesystems iomatrix made (or
				       * was making when it crashed) on this device in this study,
				       * from the journal; NULL: none */
	const char *log_path;       /* mkfs and wipefs output; NULL: kept in memory */
	const struct iom_own_dir *log_dir; /* the pinned directory log_path is under, or NULL */
	uint64_t timeout_ns;        /* 0: 30 minutes */
	volatile sig_atomic_t *stop;
	const char *root;           /* sysfs and /proc for the safety checks; NULL: "/" */
	const char *search_path;    /* where mkfs is looked for; NULL: see iom_fs_tool_find */
	const char *uuid;           /* the new filesystem's UUID (from iom_fs_new_uuid, journalled
				     * before the mkfs so a crash during it leaves nothing
				     * unrecorded); NULL: a new one */
};

/* A new random UUID in lower case ("0b5e12ab-…"), into out. 0 or -EIO. */
int iom_fs_new_uuid(char out[IOM_FS_UUID_LEN + 1]);

/*
 * Makes a new filesystem of fstype on device, replacing whatever our own filesystem was there:
 * checks the device (iom_target_check_writable, letting through the one of o->own_uuids the
 * device carries when its label matches too),
 * then runs
 *   mkfs.ext4 -F -q -L LABEL -U UUID [options] DEVICE
 *   mkfs.xfs -f -q -L LABEL -m uuid=UUID [options] DEVICE
 *   mkfs.btrfs -f -q -L LABEL -U UUID [options] DEVICE
 * with a new UUID (or o->uuid), and checks that the device now carries it. For "raw" it wipes our own
 * filesystem's signatures (wipefs -a) so the device is blank. made (the caller's) gets what
 * was made: record it before anything else happens to the device. 0, or -errno with a message:
 * the safety check's refusal, a missing mkfs naming its package, or mkfs's failure with its
 * last line of output.
 */
int iom_fs_make(const char *device, const char *fstype, const struct iom_fs_opts *o,
		struct iom_fs_made *made, char *err, size_t errlen);

/*
 * Mounts device (a filesystem of fstype) on a new private directory (mode 0700) under
 * /run/iomatrix, or /tmp when /run is not writable, with mount(2): options are mount(8)'s
 * ("noatime,discard"): the generic flags (ro, noatime, relatime, lazytime, sync, …) become
 * mount flags, the rest the filesystem's data; nosuid and nodev are always added. *mount_dir
 * gets the directory (the caller frees it, after iom_fs_unmount). 0 or -errno with a message.
 */
int iom_fs_mount(const char *device, const char *fstype, const char *options, char **mount_dir,
		 char *err, size_t errlen);

/*
 * Unmounts mount_dir and removes the directory. A busy filesystem is retried for busy_wait_ns
 * (0: 5 s), then detached lazily (MNT_DETACH) as a last resort: IOM_FS_NOTE with a warning in
 * msg. 0, or -errno with a message.
 */
int iom_fs_unmount(const char *mount_dir, uint64_t busy_wait_ns, char *msg, size_t msglen);

/*
 * Unmounts what a killed iomatrix left behind: mounts of device on iomatrix's private
 * directories whose filesystem carries own_uuid (never anything else). For resume, before the
 * next mkfs. Returns the number of mounts undone (0 when none), or -errno with a message.
 */
int iom_fs_unmount_stale(const char *device, const char *own_uuid, char *msg, size_t msglen);

/*
 * The journal's record of a mkfs: "DEVICE FSTYPE UUID LABEL" ("/dev/sdb ext4 0b5e… iom-0b5e12ab";
 * raw: "/dev/sdb raw - -"). The caller frees the string. _parse reads it back: *device gets a
 * new string the caller frees; 0 or -EINVAL.
 */
char *iom_fs_made_format(const char *device, const struct iom_fs_made *made);
int iom_fs_made_parse(const char *text, char **device, struct iom_fs_made *made);

#endif
