/* SPDX-License-Identifier: MIT */
/*
 * preset — the matrix files `iomatrix new` writes: one template per well-known benchmark (ATTO,
 * DiskSpd, Iometer, CrystalDiskMark) plus the quick demo, each the commented twin of a matrix
 * shipped in matrices/, with the user's paths filled in as targets. Written without paths, a
 * preset is its shipped matrix (same name, targets, workload, timing and order: tests/
 * test_preset.c holds them to it, so the two copies cannot drift apart).
 *
 * Also the small helpers other matrix writers need (diskspd.c): a target label made from a path
 * and a string quoted for libconfig.
 */
#ifndef IOM_PRESET_H
#define IOM_PRESET_H

#include <stddef.h>

/* The preset `iomatrix new` uses when none is named. */
#define IOM_PRESET_DEFAULT "quick"

/* Number of presets, and the name ("atto"), shipped file ("atto.cfg") and one-line summary of
 * preset i (0 <= i < iom_preset_count()); the strings are static. */
size_t iom_preset_count(void);
const char *iom_preset_name(size_t i);
const char *iom_preset_file(size_t i);
const char *iom_preset_summary(size_t i);

/* Index of the preset called name, or -1. */
int iom_preset_find(const char *name);

/*
 * Writes the matrix text of preset name with one target per path (npaths may be 0: the preset's
 * own example targets). A path that is a directory gets a scratch file inside it; a block device
 * (or a path under /dev/) gets destructive = false and a comment on what setting it means. The
 * text is checked by the matrix reader before it is returned, so it passes `iomatrix check`.
 * On success *text is a new string the caller frees; on failure -EINVAL (unknown preset, paths
 * the matrix refuses) with the message in err.
 */
int iom_preset_write(const char *name, const char *const *paths, size_t npaths, char **text,
		     char *err, size_t errlen);

/*
 * A target label made from path: its last component (a directory's own name), with characters
 * a label may not hold replaced by '_'; "target" when nothing is left. Writes at most len - 1
 * bytes (len >= 2) into buf.
 */
void iom_preset_label(const char *path, char *buf, size_t len);

/* Writes text to a new file at path, whole or not at all, never replacing one: -EEXIST when
 * path exists (a link too), another -errno when it cannot be written (nothing is left behind),
 * with err; cmd names the command that writes ("new", "import") in what err says. */
int iom_preset_save(const char *path, const char *text, const char *cmd, char *err,
		    size_t errlen);

/* s as a libconfig string literal, quotes and escapes included; the caller frees it. */
char *iom_preset_quote(const char *s);

#endif
