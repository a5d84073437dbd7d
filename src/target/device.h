/* SPDX-License-Identifier: MIT */
/*
 * device — what is known of the device under a path, read from the kernel: sysfs (the disk, its
 * partition, the controller's driver — vmw_pvscsi, mpt3sas, nvme, ahci, virtio_blk … —, model,
 * block sizes, scheduler), /proc/self/mountinfo (the mount that holds a file, its options), the
 * signatures libblkid finds on a device, the disk's request counters and its disk sequence
 * number. Plain facts, below the target that decides what they allow.
 *
 * sysfs and /proc are read below a root directory given by the caller ("/" in real use), so tests
 * run the same code on fixture trees.
 *
 * Only this module includes <blkid/blkid.h>.
 */
#ifndef IOM_DEVICE_H
#define IOM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What is known of the device under a target; strings are heap-owned, NULL when unknown. */
struct iom_device_facts {
	char *device;         /* "/dev/nvme0n1" — the whole disk (parent of a partition) */
	char *partition;      /* "/dev/nvme0n1p2" when the target sits on a partition */
	char *driver;         /* the controller's driver: "nvme", "vmw_pvscsi", "loop", … */
	char *model;
	char *vendor;
	uint32_t logical_block_size, physical_block_size;
	int rotational;       /* 1, 0, or -1 when unknown */
	char *scheduler;      /* the active one, e.g. "none", "mq-deadline" */
	uint32_t nr_requests;
	char *fstype;         /* filesystem of a scratch file ("ext4", "tmpfs"); NULL for a device */
	char *mount_point;
	char *mount_options;  /* the mount's options, then the superblock's ("rw,relatime,discard") */
	uint64_t device_bytes;/* size of the whole disk (facts.device), 0 when unknown */
	uint64_t partition_bytes; /* size of facts.partition, 0 when none */
	char *backing_file;   /* a loop device's backing file */
	char *irq_names;      /* prefix of the device's lines in /proc/interrupts, for cpu.h:
			       * "nvme0q", "virtio1-", "vmw_pvscsi", "ahci"; NULL when none */
};

/* Reads device facts for path, with sysfs and /proc under root ("/" for the real ones). */
int iom_device_facts_read(const char *root, const char *path, struct iom_device_facts *f);

/*
 * As iom_device_facts_read() for the device major:minor (st_dev of a file, st_rdev of a block
 * device); file is the absolute resolved path of a scratch file on it (for the mount facts), or
 * NULL for a block device. Unknown facts stay NULL/0; returns 0.
 */
int iom_device_facts_read_dev(const char *root, unsigned major, unsigned minor, const char *file,
			      struct iom_device_facts *f);
void iom_device_facts_release(struct iom_device_facts *f);

/* A signature found by libblkid; strings heap-owned, NULL when absent. */
struct iom_signature {
	char *type;    /* "ext4", "xfs", "LVM2_member", "linux_raid_member", "swap" … */
	char *usage;   /* "filesystem", "raid", "crypto", "other" */
	char *uuid;
	char *label;
	char *pttype;  /* partition table: "gpt", "dos" */
	bool ambivalent; /* more than one signature: libblkid would not choose */
};

/* Probes path for signatures, partition tables included (a GPT found by its backup header
 * too): 1 when one was found (s filled), 0 when blank, -errno. */
int iom_signature_read(const char *path, struct iom_signature *s);
/* As iom_signature_read(), of the device open as fd (its file offset is not used). */
int iom_signature_read_fd(int fd, struct iom_signature *s);
void iom_signature_release(struct iom_signature *s);

/* A disk's request counters, from /sys/block/NAME/stat (the kernel's Documentation/block/
 * stat.rst: fields 1, 5, 12 and 16 are reads, writes, discards and flushes completed). */
struct iom_disk_counters {
	uint64_t reads, writes, discards, flushes;
	unsigned fields;      /* how many fields the file had: discards need 12, flushes 16 */
	char write_cache[16]; /* queue/write_cache: "write back" (volatile), "write through";
			       * "" when unknown */
	int fua;              /* queue/fua: 1 the disk takes FUA writes, 0 not, -1 unknown */
};

/*
 * The counters now of the whole disk behind device ("/dev/vda", a device facts' device; its
 * stat file is SYSFS/block/vda/stat, sysfs NULL for "/sys"). 0, or -errno (-ENOENT: sysfs
 * has no such disk; -EINVAL: not a stat file).
 */
int iom_disk_counters_read(const char *sysfs, const char *device, struct iom_disk_counters *c);

/* The kernel's disk sequence number of the block device open as fd (changes when the name goes
 * to another disk or a loop device is re-attached), or 0 when the kernel has none (< 5.15). */
uint64_t iom_device_diskseq(int fd, dev_t rdev);

/* ---- sysfs and mountinfo, for the checks above this room -------------------------------- */

/* root + rel ("/sys/…"), without doubling the slash; the caller frees it. */
char *iom_sysfs_path(const char *root, const char *rel);
/* The trimmed content of dir/name (the caller frees it), or NULL when missing or empty. */
char *iom_sysfs_attr(const char *dir, const char *name);
/* Whether dir/name exists. */
bool iom_sysfs_has(const char *dir, const char *name);
/* The resolved directory of block device maj:min under ROOT/sys/dev/block (the caller frees
 * it), or NULL. */
char *iom_sysfs_block_dir(const char *root, unsigned maj, unsigned min);
/* "MAJ:MIN" → maj, min; false when s is not that. */
bool iom_majmin_parse(const char *s, unsigned *maj, unsigned *min);

/* One line of /proc/self/mountinfo; strings heap-owned. */
struct iom_mount {
	unsigned maj, min;
	char *point, *opts, *fstype, *source, *super;
};

struct iom_mounts {
	struct iom_mount *e;
	size_t n;
};

/* Reads ROOT/proc/self/mountinfo into m (release it with iom_mounts_release()); 0 or -errno. */
int iom_mounts_load(const char *root, struct iom_mounts *m);
void iom_mounts_release(struct iom_mounts *m);

#endif
