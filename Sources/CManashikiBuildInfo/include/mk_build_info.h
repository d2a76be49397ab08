#ifndef MK_BUILD_INFO_H
#define MK_BUILD_INFO_H
// Where `manashiki-sync --version` learns the commit it was built from (BuildInfo.swift).

#ifdef __cplusplus
extern "C" {
#endif

/// The commit the release build was made from ("<40 hex>" or "<40 hex>-dirty"), or "" for a plain
/// `swift build`. scripts/build-release links an object (made by scripts/build-info-object) that
/// defines `mk_build_commit_value` strongly; the weak definition here wins only without it.
const char *mk_build_commit(void);

#ifdef __cplusplus
}
#endif
#endif
