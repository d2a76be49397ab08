#!/usr/bin/env python3
"""Apple type-check: the package's library targets, type-checked here as each Apple platform's
compiler sees them.

No Apple compiler runs in CI. `.ci/portability.py` evaluates the `#if`s and matches known-bad
patterns; this script goes further: for macOS, iOS, Mac Catalyst, tvOS, watchOS and visionOS it
keeps exactly the lines that platform compiles (portability.py's `#if` evaluation), and
type-checks every library target with this machine's Swift compiler in Swift 6 mode with strict
concurrency, module by module in dependency order. Apple-only modules and members are supplied
by stand-ins written from Apple's documentation (`.ci/apple-sdk/`: CryptoKit, Security, os, the
Darwin C declarations Glibc lacks in `DarwinOnly/`, and per-target `shims/<Target>.swift` for
Foundation members such as `URLSessionConfiguration.sharedContainerIdentifier`). So a closure
that captures a non-Sendable value in an Apple-only branch, a wrong argument label, a missing
`try`, an optional not unwrapped, an overload that does not resolve, or an Apple API used without
a stand-in (that is: without having been checked against Apple's documentation) fails here.

What it cannot see: Darwin's C types where they differ from Glibc's (`mode_t` is UInt16 on
Darwin), Apple's own Sendable annotations (corelibs Foundation's are used), Objective-C protocol
witness matching, availability (portability.py's rules), and Swift 6.0 compilers (this one is
newer). docs/development.md, "What is verified on Linux only", says so too.

    python3 .ci/apple-typecheck.py                 # every Apple platform; exit 1 on errors
    python3 .ci/apple-typecheck.py iOS macOS       # some platforms
    python3 .ci/apple-typecheck.py --self-test     # prove it fails on known-bad Apple-only code

A platform whose view of a target (and of the targets it depends on) is the same text as one
already checked is not checked again (iOS and Mac Catalyst usually are).
"""
import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import portability as P  # noqa: E402

SDK = os.path.join(HERE, "apple-sdk")
STAND_INS = ["CryptoKit", "Security", "os"]


def library_targets(root):
    """Swift library targets in dependency order: name -> dependencies (Apple conditions)."""
    targets, _ = P.package_targets(root)
    libs = {}
    for name, (kind, deps, _) in targets.items():
        folder = os.path.join(root, "Sources", name)
        if kind == "target" and os.path.isdir(folder) and any(f.endswith(".swift") for _, _, fs in os.walk(folder) for f in fs):
            libs[name] = deps
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in libs:
            return
        seen.add(name)
        for d in libs[name]:
            visit(d)
        order.append(name)
    for name in sorted(libs):
        visit(name)
    return [(n, [d for d in libs[n] if d in libs]) for n in order]


def apple_view(root, target, platform, local):
    """The target's Swift files as `platform` compiles them, with Linux stand-ins for Apple's
    modules: {file name: text}."""
    files = {}
    folder = os.path.join(root, "Sources", target)
    for dirpath, _, names in os.walk(folder):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(dirpath, name)
            source = open(path, encoding="utf-8").read()
            active, _ = P.active_lines_swift(path, P.strip_swift(source), platform, local, [])
            out = []
            for number, line in enumerate(source.split("\n"), 1):
                if number not in active or re.match(r"\s*#(if|elseif|else|endif)\b", line):
                    out.append("")
                    continue
                line = re.sub(r"^(\s*)import Darwin\s*$", r"\1import Glibc; import DarwinOnly", line)
                line = re.sub(r"\bDarwin\.(?=\w)", "Glibc.", line)
                # On Apple platforms Foundation holds URLSession; here FoundationNetworking does.
                line = re.sub(r"^(\s*)import Foundation\s*$", r"\1import Foundation; import FoundationNetworking", line)
                out.append(line)
            files[os.path.relpath(path, folder).replace(os.sep, "_")] = "\n".join(out)
    shim = os.path.join(SDK, "shims", target + ".swift")
    if os.path.exists(shim):
        kept, keep = [], True
        for line in open(shim, encoding="utf-8").read().split("\n"):
            if line.startswith("//@only "):
                keep = platform in [p.strip() for p in line[len("//@only "):].split(",")]
            elif line.startswith("//@end"):
                keep = True
            else:
                kept.append(line if keep else "")
        files["ZZ_AppleSDKShim.swift"] = "\n".join(kept)
    return files


def swiftc(args, cwd):
    r = subprocess.run(["swiftc", "-parse-as-library", "-swift-version", "6"] + args, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = [l for l in r.stdout.split("\n") if re.search(r"\b(error|warning):", l) and not l.lstrip().startswith("|")
             # corelibs deprecates what Apple documents for background sessions; not Apple's view.
             and "swift-corelibs-foundation does not support background URLSession" not in l]
    return r.returncode, lines


def build_stand_ins(work):
    common = os.path.join(work, "common")
    os.makedirs(common, exist_ok=True)
    for name in STAND_INS:
        code, out = swiftc(["-emit-module", "-module-name", name, os.path.join(SDK, name + ".swift"),
                            "-emit-module-path", os.path.join(common, name + ".swiftmodule")], work)
        if code != 0:
            raise SystemExit("apple-typecheck: the stand-in %s does not compile:\n%s" % (name, "\n".join(out)))
    return common


def c_module_dirs(root, work):
    """Module maps for the package's C targets that have an include/ folder (what SwiftPM writes
    for them: an umbrella directory), so a Swift target importing one on Apple platforms
    (CManashikiBuildInfo) type-checks. Their headers are read with this machine's C headers."""
    dirs = []
    sources = os.path.join(root, "Sources")
    for name in sorted(os.listdir(sources)):
        include = os.path.join(sources, name, "include")
        if not os.path.isdir(include) or os.path.exists(os.path.join(sources, name, "module.modulemap")):
            continue
        d = os.path.join(work, "cmodules", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "module.modulemap"), "w", encoding="utf-8") as f:
            f.write('module %s {\n    umbrella "%s"\n    export *\n}\n' % (name, include))
        dirs += ["-I", d]
    return dirs


def check(root, platforms, work):
    """Returns the error lines, each prefixed with its platform. Platforms are checked side by
    side (one worker a core: each swiftc is one process); a target whose view (and whose
    dependencies' views) another platform already checked, or is checking, is not checked again."""
    local = P.local_module_names(root)
    common = build_stand_ins(work)
    c_modules = c_module_dirs(root, work)
    order = library_targets(root)
    views = ViewCache()

    def one(platform):
        return check_platform(root, platform, work, local, common, c_modules, order, views)

    workers = max(1, min(len(platforms), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return [line for lines in pool.map(one, platforms) for line in lines]


class ViewCache:
    """Module files by view key, shared by the platform workers: the first to claim a key checks
    it, the others wait for its module (and check it themselves if it failed, so that the
    errors are reported for their platform too)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = {}

    def claim(self, key):
        """(True, entry) when the caller must check `key`; (False, entry) when another did."""
        with self.lock:
            if key in self.entries:
                return False, self.entries[key]
            entry = {"done": threading.Event(), "module": None}
            self.entries[key] = entry
            return True, entry


def check_platform(root, platform, work, local, common, c_modules, order, views):
    """The error lines of one platform's views, in dependency order."""
    out_dir = os.path.join(work, platform)
    os.makedirs(out_dir, exist_ok=True)
    keys, problems = {}, []
    for target, deps in order:
        files = apple_view(root, target, platform, local)
        digest = hashlib.sha256("\0".join(k + "\0" + v for k, v in sorted(files.items())).encode())
        for d in deps:
            digest.update(keys[d].encode())
        keys[target] = digest.hexdigest()
        src = os.path.join(work, "src", platform, target)
        os.makedirs(src, exist_ok=True)
        for name, text in files.items():
            open(os.path.join(src, name), "w", encoding="utf-8").write(text)
        module = os.path.join(out_dir, target + ".swiftmodule")
        owner, entry = views.claim(keys[target])
        if not owner:
            entry["done"].wait()
            if entry["module"]:
                shutil.copy(entry["module"], module)
                continue
        code = None
        try:
            code, out = swiftc(["-emit-module", "-module-name", target, "-package-name", "manashiki"]
                               + sorted(os.path.join(src, n) for n in files)
                               + ["-I", common, "-I", out_dir, "-I", os.path.join(SDK, "DarwinOnly")] + c_modules + [
                                  "-emit-module-path", module], work)
        finally:
            if owner:  # set before the waiters read it; None until it succeeded
                entry["module"] = module if code == 0 else None
                entry["done"].set()
        rel = os.path.relpath(src, work) + os.sep
        problems.extend("[%s] %s" % (platform, l.replace(os.path.join(work, ""), "").replace(rel, "Sources/%s/(%s view) " % (target, platform)))
                        for l in out)
        if code != 0 and not out:
            problems.append("[%s] %s: swiftc failed without a diagnostic" % (platform, target))
    return problems


BAD_BRANCH = '''import Foundation
#if os(iOS)
final class Box { var n = 0 }
func f(_ box: Box) { DispatchQueue.main.async { box.n += 1 } }
#endif
'''
BAD_API = '''import Foundation
#if os(macOS)
func g() { ProcessInfo.processInfo.performExpiringActivity(withReason: "r") { _ in } }
#endif
'''
GOOD = '''import Foundation
#if os(iOS)
func h() -> URLSessionConfiguration { let c = URLSessionConfiguration.background(withIdentifier: "x"); c.sharedContainerIdentifier = "g"; return c }
#endif
'''


def self_test():
    """Known-bad Apple-only code must fail, known-good must pass, in a scratch package whose
    target is named Manashiki (so the real stand-ins apply)."""
    failures = []
    cases = [("a non-Sendable capture in an iOS-only branch", "iOS", BAD_BRANCH, "data race"),
             ("performExpiringActivity compiled for macOS (unavailable there)", "macOS", BAD_API, "performExpiringActivity"),
             ("background configuration with an App Group (stand-ins)", "iOS", GOOD, None)]
    for label, platform, text, expected in cases:
        with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as work:
            P.write(root, "Package.swift", 'let p = Package(targets: [.target(name: "Manashiki")])\n')
            P.write(root, "Sources/Manashiki/Platform/X.swift", text)
            found = check(root, [platform], work)
            if expected is None and found:
                failures.append("false alarm: %s: %s" % (label, found))
            elif expected is not None and not any(expected in f for f in found):
                failures.append("not caught: %s (expected %r; got %s)" % (label, expected, found))
    if failures:
        print("apple-typecheck self-test FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("apple-typecheck self-test passed: %d cases" % len(cases))
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = os.path.abspath(os.path.join(HERE, ".."))
    platforms = [a for a in argv[1:] if not a.startswith("--")] or P.APPLE
    unknown = [p for p in platforms if p not in P.APPLE]
    if unknown:
        print("apple-typecheck: unknown platform(s) %s (one of %s)" % (", ".join(unknown), ", ".join(P.APPLE)))
        return 2
    with tempfile.TemporaryDirectory(prefix="apple-typecheck-") as work:
        problems = check(root, platforms, work)
    if problems:
        print("apple-typecheck: %d problem(s) in the Apple views (stand-ins: .ci/apple-sdk/):" % len(problems))
        for p in problems:
            print("  " + p)
        return 1
    print("apple-typecheck passed: every library target type-checks (Swift 6, strict concurrency) as %s compile it" % ", ".join(platforms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
