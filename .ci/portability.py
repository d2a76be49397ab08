#!/usr/bin/env python3
"""Portability check: reads the package as each platform's compiler would.

No Apple compiler runs in CI, so this script evaluates every `#if` / `#elseif` / `#else` in
Sources/ and Tests/ (Swift: os(), canImport(), targetEnvironment(), arch(), compiler(), swift();
C: defined(), TARGET_OS_*, __GLIBC__ comparisons) for macOS, iOS, Mac Catalyst, tvOS, watchOS,
visionOS and Linux — the tests too: a package's test targets are built for an iOS, tvOS,
watchOS or visionOS simulator as well — and flags code that would be compiled on a platform but
uses what does not exist there (Foundation.Process off macOS, Glibc symbols on Apple,
posix_spawn on tvOS/watchOS, CryptoKit on Linux, more than one @main in an executable target,
a type of this package declared only for some platforms — `ChildProcess`, `RunningChild`,
`CurlTransport`, `BackgroundModelDownloads` — used where it is not declared, ...). It also enforces the
package's rules: platform decisions (`os(...)`) live in a target's `Platform/` folder (a file
guarded as a whole is allowed anywhere), and `canImport` never names one of this package's own
modules (its answer changes with a Package.swift condition, not with the platform). And it keeps
the privacy manifests true: a library that apps embed and whose code compiled for iOS, Mac
Catalyst, tvOS, watchOS or visionOS uses one of Apple's required-reason APIs carries a valid
`PrivacyInfo.xcprivacy`, listed in Package.swift, declaring that category with an approved
reason; a category declared but no longer used is flagged too.

    python3 .ci/portability.py              # check the package; exit 1 on findings
    python3 .ci/portability.py --self-test  # prove the check flags known-bad code

Run by .ci/run before `swift test`, and by `swift test` itself (PortabilityCheckTests).
"""
import os
import plistlib
import re
import sys
import tempfile

# --------------------------------------------------------------------------------------------
# Platforms

APPLE = ["macOS", "iOS", "macCatalyst", "tvOS", "watchOS", "visionOS"]
PLATFORMS = APPLE + ["Linux"]

# The value of os(...) for each platform (Mac Catalyst compiles as os(iOS)).
OS_NAME = {"macOS": "macOS", "iOS": "iOS", "macCatalyst": "iOS", "tvOS": "tvOS", "watchOS": "watchOS",
           "visionOS": "visionOS", "Linux": "Linux"}
OS_ALIASES = {"OSX": "macOS", "xrOS": "visionOS"}

# System modules that exist per platform (canImport). Package modules are handled separately.
_APPLE_COMMON = {"Darwin", "Foundation", "Dispatch", "CryptoKit", "Combine", "Network", "os", "Security",
                 "SwiftUI", "Observation", "Testing", "XCTest", "ObjectiveC", "CoreFoundation", "OSLog"}
MODULES = {
    "macOS": _APPLE_COMMON | {"AppKit", "BackgroundAssets", "IOKit"},
    "iOS": _APPLE_COMMON | {"UIKit", "BackgroundAssets"},
    "macCatalyst": _APPLE_COMMON | {"UIKit", "AppKit", "BackgroundAssets", "IOKit"},
    "tvOS": _APPLE_COMMON | {"UIKit"},
    "watchOS": _APPLE_COMMON | {"WatchKit"},
    "visionOS": _APPLE_COMMON | {"UIKit", "BackgroundAssets"},
    "Linux": {"Glibc", "Foundation", "FoundationNetworking", "FoundationEssentials", "Dispatch", "Testing",
              "XCTest", "CoreFoundation", "SwiftGlibc"},
}
ARCH = {p: "arm64" for p in APPLE} | {"Linux": "x86_64"}
# The oldest compiler that builds the package on each platform (swift-tools-version 6.0; 6.3.1 here).
COMPILER = {p: (6, 0) for p in APPLE} | {"Linux": (6, 3, 1)}

# C preprocessor macros per platform (TargetConditionals.h on Apple).
def c_macros(platform):
    m = {}
    if platform == "Linux":
        m.update({"__linux__": 1, "__GLIBC__": 2, "__GLIBC_MINOR__": 36, "__x86_64__": 1, "__unix__": 1})
    else:
        m.update({"__APPLE__": 1, "__MACH__": 1, "__arm64__": 1})
        t = {"TARGET_OS_MAC": 1, "TARGET_OS_OSX": 0, "TARGET_OS_IPHONE": 0, "TARGET_OS_IOS": 0,
             "TARGET_OS_TV": 0, "TARGET_OS_WATCH": 0, "TARGET_OS_VISION": 0, "TARGET_OS_MACCATALYST": 0,
             "TARGET_OS_SIMULATOR": 0}
        if platform == "macOS":
            t["TARGET_OS_OSX"] = 1
        else:
            t["TARGET_OS_IPHONE"] = 1
            key = {"iOS": "TARGET_OS_IOS", "macCatalyst": "TARGET_OS_IOS", "tvOS": "TARGET_OS_TV",
                   "watchOS": "TARGET_OS_WATCH", "visionOS": "TARGET_OS_VISION"}[platform]
            t[key] = 1
            if platform == "macCatalyst":
                t["TARGET_OS_MACCATALYST"] = 1
        m.update(t)
    return m

# --------------------------------------------------------------------------------------------
# Rules: what does not exist where. (regex, platforms where it is missing, why)

NOT_MACOS = [p for p in APPLE if p != "macOS"]
NO_SPAWN_APPLE = ["tvOS", "watchOS"]

SWIFT_RULES = [
    (r"\bimport\s+Glibc\b|\bGlibc\.", APPLE, "Glibc exists only on Linux"),
    (r"\bMSG_NOSIGNAL\b", APPLE, "MSG_NOSIGNAL does not exist on Darwin (use SO_NOSIGPIPE)"),
    (r"\bSOCK_(STREAM|DGRAM|RAW)\.rawValue\b", APPLE, "SOCK_STREAM is an Int32 on Darwin, an enum only in Glibc"),
    (r"\bepoll_\w+|\bsendfile\s*\(|\bsync_file_range\b|\bcopy_file_range\b|\baccept4\s*\(|\bpipe2\s*\(|\binotify_\w+|\bprctl\s*\(|\bSOCK_CLOEXEC\b|\bO_DIRECT\b",
     APPLE, "a Linux-only system call or flag"),
    (r"STRING:[\"']/proc/", APPLE, "/proc exists only on Linux"),
    (r"\bst_(m|a|c)tim\b", APPLE, "Darwin's stat has st_mtimespec, not st_mtim"),
    (r"\bimport\s+FoundationNetworking\b|\bFoundationNetworking\.", APPLE, "FoundationNetworking exists only on Linux"),
    (r"\bmk_curl_\w+|\bCurlTransport\b|\bCurlTransfer\b", APPLE, "libcurl's transport is built on Linux only"),
    (r"\bmk_start_writeback\b", APPLE, "the writeback shim is linked on Linux only"),
    (r"\bFoundation\.Process\b|(?<![\w.])Process\s*\(\s*\)|:\s*Process\b|\bas\??!?\s+Process\b|\bProcess\.(TerminationReason|run)\b",
     NOT_MACOS + ["Linux"], "Foundation.Process exists only on macOS (and must not be used on Linux: corelibs #5472)"),
    (r"\bChildProcess\b|\bmk_spawn\b", NOT_MACOS, "child processes exist only on Linux and macOS (ManashikiProcess)"),
    (r"\bposix_spawn\w*|\bfork\s*\(|\bexecv\w*\s*\(|\bwait4\s*\(|\bwaitpid\s*\(", NO_SPAWN_APPLE,
     "process spawning is prohibited on tvOS and watchOS"),
    (r"\bimport\s+CryptoKit\b|\bCryptoKit\.", ["Linux"], "CryptoKit exists only on Apple platforms"),
    (r"\bimport\s+Darwin\b|\bDarwin\.", ["Linux"], "Darwin exists only on Apple platforms"),
    (r"\bF_FULLFSYNC\b|\bst_(m|a|c)timespec\b|\bSO_NOSIGPIPE\b", ["Linux"], "a Darwin-only constant"),
    (r"\bimport\s+UIKit\b|\bUIDevice\b|\bUIApplication\b", ["macOS", "watchOS", "Linux"], "UIKit exists on iOS, tvOS, visionOS and Mac Catalyst only"),
    (r"\bimport\s+AppKit\b|\bNSApplication\b", ["iOS", "tvOS", "watchOS", "visionOS", "Linux"], "AppKit exists on macOS only"),
    (r"\bimport\s+WatchKit\b|\bWKInterfaceDevice\b", [p for p in PLATFORMS if p != "watchOS"], "WatchKit exists on watchOS only"),
    (r"\bimport\s+BackgroundAssets\b", ["tvOS", "watchOS", "Linux"], "Background Assets: macOS 13, iOS 16, visionOS 1 only"),
    (r"\bvolumeAvailableCapacityFor(Important|Opportunistic)Usage", ["tvOS", "watchOS", "Linux"],
     "volumeAvailableCapacityForImportantUsage: macOS 10.13, iOS 11, visionOS 1; not on tvOS/watchOS or Linux"),
    (r"\b(processInfo|info)\.(isiOSAppOnMac|isMacCatalystApp)\b", ["Linux"], "ProcessInfo.isiOSAppOnMac / isMacCatalystApp are Apple-only"),
    (r"\ballows(Expensive|Constrained)NetworkAccess\b|\bURLSessionConfiguration\.background\b|\bbackground\(withIdentifier:",
     ["Linux"], "Apple-only URLSessionConfiguration API"),
    (r"\bbackgroundTaskCancelledReason\b|\bdownloadTaskResumeData\b|\bNSURLSessionDownloadTaskResumeData\b|\bforSecurityApplicationGroupIdentifier\b",
     ["Linux"], "Apple-only Foundation API (FoundationNetworking's URLError has no background-task fields; no App Groups)"),
    (r"\bperformExpiringActivity\b", ["macOS", "Linux"],
     "ProcessInfo.performExpiringActivity(withReason:using:): iOS 8.2, Mac Catalyst 13.1, tvOS 9, watchOS 2, visionOS 1; API_UNAVAILABLE(macos)"),
    (r"@Observable\b|\bimport\s+Observation\b", PLATFORMS, "Observation needs iOS 17 / macOS 14 (deployment targets are iOS 16 / macOS 13)"),
]

COMPILED_SWIFT_RULES = None  # filled below

# APIs introduced above the deployment targets (Package.swift `platforms:`): outside an
# `if #available` / `guard #available` / `@available` scope that names the platform with at
# least that version, Apple's compiler refuses them ("'X' is only available in iOS 18.0 or
# newer"); Linux has no availability, so only this check sees it. A `*` in `#available` means
# "the deployment target" and does not count, so `#available(iOS 18, *)` still fails on macOS.
# (pattern, name, {platform: version introduced}, where Apple documents it)
def _introduced(macos, ios, tvos, watchos, visionos):
    return {"macOS": macos, "iOS": ios, "macCatalyst": ios, "tvOS": tvos, "watchOS": watchos, "visionOS": visionos}

SWIFT6_RUNTIME = _introduced((15,), (18,), (18,), (11,), (2,))   # @available(SwiftStdlib 6.0, *)
SONOMA = _introduced((14,), (17,), (17,), (10,), (1,))
ABOVE_TARGET_RULES = [
    (r"\bString\s*\(\s*validating\s*:", "String(validating:as:)", SWIFT6_RUNTIME,
     "developer.apple.com/documentation/swift/string/init(validating:as:)"),
    (r"\bimport\s+Synchronization\b|\bMutex\s*[<(]|\bAtomic\s*[<(]", "Synchronization (Mutex, Atomic)", SWIFT6_RUNTIME,
     "developer.apple.com/documentation/synchronization"),
    (r"\bU?Int128\b", "Int128 / UInt128", SWIFT6_RUNTIME, "developer.apple.com/documentation/swift/int128"),
    (r"\bRangeSet\s*<|\.indices\s*\(\s*where\s*:|\.removeSubranges\s*\(|\.moveSubranges\s*\(", "RangeSet and its collection operations",
     SWIFT6_RUNTIME, "developer.apple.com/documentation/swift/rangeset"),
    (r"\b(some|any)\s+AsyncSequence\s*<", "AsyncSequence's primary associated types", SWIFT6_RUNTIME,
     "developer.apple.com/documentation/swift/asyncsequence"),
    (r"\bwithTaskExecutorPreference\b|\bTaskExecutor\b|\bexecutorPreference\s*:", "task executors", SWIFT6_RUNTIME,
     "developer.apple.com/documentation/swift/taskexecutor"),
    (r"\bwith(Throwing)?DiscardingTaskGroup\b", "withDiscardingTaskGroup", SONOMA,
     "developer.apple.com/documentation/swift/withdiscardingtaskgroup(returning:isolation:body:)"),
    (r"\bencodingInvalidCharacters\s*:", "URL(string:encodingInvalidCharacters:)", SONOMA,
     "developer.apple.com/documentation/foundation/url/init(string:encodinginvalidcharacters:)"),
    (r"#Predicate\b|\bPredicate\s*<", "Foundation's Predicate", SONOMA, "developer.apple.com/documentation/foundation/predicate"),
]
COMPILED_ABOVE_TARGET_RULES = [(re.compile(p), n, v, d) for p, n, v, d in ABOVE_TARGET_RULES]

# The deployment targets when Package.swift names none (the package's own).
DEFAULT_TARGETS = {"macOS": (13,), "iOS": (16,), "macCatalyst": (16,), "tvOS": (16,), "watchOS": (9,), "visionOS": (1,)}
AVAILABILITY_NAMES = {"macOS": "macOS", "OSX": "macOS", "iOS": "iOS", "macCatalyst": "macCatalyst", "tvOS": "tvOS",
                      "watchOS": "watchOS", "visionOS": "visionOS", "xrOS": "visionOS"}


def deployment_targets(root):
    """Package.swift's `platforms:` (`.macOS(.v13)`, `.iOS("16.0")`); Mac Catalyst follows iOS
    unless named."""
    targets = dict(DEFAULT_TARGETS)
    path = os.path.join(root, "Package.swift")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    named = set()
    for m in re.finditer(r"\.(macOS|iOS|tvOS|watchOS|visionOS|macCatalyst)\(\s*(?:\.v(\d+(?:_\d+)*)|\"([\d.]+)\")\s*\)", text):
        version = m.group(2).replace("_", ".") if m.group(2) else m.group(3)
        targets[m.group(1)] = parse_version(version)
        named.add(m.group(1))
    if "iOS" in named and "macCatalyst" not in named:
        targets["macCatalyst"] = targets["iOS"]
    return targets


def availability_arguments(args):
    """`macOS 15, iOS 18.0, *` or `iOS, introduced: 18` -> {platform: version}; Mac Catalyst
    inherits iOS unless named."""
    found = {}
    for name, version in re.findall(r"\b(macOS|OSX|iOS|macCatalyst|tvOS|watchOS|visionOS|xrOS)\s+(\d+(?:\.\d+)*)", args):
        found[AVAILABILITY_NAMES[name]] = parse_version(version)
    for name, version in re.findall(r"\b(macOS|OSX|iOS|macCatalyst|tvOS|watchOS|visionOS|xrOS)\s*,\s*introduced\s*:\s*(\d+(?:\.\d+)*)", args):
        found[AVAILABILITY_NAMES[name]] = parse_version(version)
    if "iOS" in found and "macCatalyst" not in found:
        found["macCatalyst"] = found["iOS"]
    return found


def availability_scopes(code):
    """For code without comments and strings: a sorted list of (offset, {platform: version})
    giving the availability in force from each offset on. `if #available(...) {` and a
    declaration marked `@available(...)` raise it inside their next `{ ... }`; `guard
    #available(...) else { ... }` raises it for the rest of the enclosing scope."""
    def merge(a, b):
        out = dict(a)
        for k, v in b.items():
            if k not in out or v > out[k]:
                out[k] = v
        return out

    transitions = [(0, {})]
    stack = [{}]
    pending = {}
    i, n = 0, len(code)
    while i < n:
        m = re.compile(r"[#@]available\s*\(").match(code, i)
        if m:
            depth, j = 0, m.end() - 1
            while j < n:
                if code[j] == "(":
                    depth += 1
                elif code[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            raised = availability_arguments(code[m.end():j])
            # `guard` opens the statement this condition belongs to (no brace or `;` between).
            if code[i] == "#" and re.search(r"\bguard\b[^{};]*$", code[max(0, i - 400):i]):
                stack[-1] = merge(stack[-1], raised)
                transitions.append((j + 1, stack[-1]))
            elif raised:
                pending = merge(pending, raised)
            i = j + 1
            continue
        c = code[i]
        if c == "{":
            stack.append(merge(stack[-1], pending))
            pending = {}
            transitions.append((i + 1, stack[-1]))
        elif c == "}":
            if len(stack) > 1:
                stack.pop()
            transitions.append((i + 1, stack[-1]))
        i += 1
    return transitions


def availability_at(transitions, offset):
    lo, hi = 0, len(transitions) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if transitions[mid][0] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return transitions[lo][1]


def check_availability(rel, code, active_by_platform, targets, findings):
    """APIs above the deployment target used where no availability scope covers them."""
    transitions = None
    for pattern, name, introduced, doc in COMPILED_ABOVE_TARGET_RULES:
        for m in pattern.finditer(code):
            if transitions is None:
                transitions = availability_scopes(code)
            number = code.count("\n", 0, m.start()) + 1
            scope = availability_at(transitions, m.start())
            for platform, active in active_by_platform.items():
                if platform not in introduced or number not in active:
                    continue
                need, target = introduced[platform], targets.get(platform, DEFAULT_TARGETS[platform])
                if target >= need or scope.get(platform, target) >= need:
                    continue
                pretty = "Mac Catalyst" if platform == "macCatalyst" else platform
                findings.append(Finding(rel, number, platform,
                    "%s needs %s %s (deployment target %s %s; %s): guard it with #available(%s %s, ...) or use an older API: %s"
                    % (name, pretty, ".".join(map(str, need)), pretty, ".".join(map(str, target)), doc, platform if platform != "macCatalyst" else "iOS",
                       ".".join(map(str, need)), code.split("\n")[number - 1].strip()[:100])))

C_RULES = [
    (r"\bposix_spawn\w*\s*\(|\bfork\s*\(|\bexecv\w*\s*\(", NO_SPAWN_APPLE, "process spawning is prohibited on tvOS and watchOS"),
    (r"\bposix_spawn_file_actions_addclosefrom_np\b|\bsync_file_range\b|\bSYNC_FILE_RANGE_\w+|\bcopy_file_range\b|\bloff_t\b", APPLE, "a Linux-only call"),
    (r"\bposix_spawn_file_actions_addchdir_np\b", NOT_MACOS, "posix_spawn_file_actions_addchdir_np: glibc 2.29, macOS 10.15 only"),
    (r"\bPOSIX_SPAWN_CLOEXEC_DEFAULT\b", ["Linux"], "POSIX_SPAWN_CLOEXEC_DEFAULT is a Darwin extension"),
    (r"\bF_FULLFSYNC\b", ["Linux"], "F_FULLFSYNC is Darwin-only"),
]

COMPILED_SWIFT_RULES = [((re.compile(p[len("STRING:"):] if p.startswith("STRING:") else p), p.startswith("STRING:")), w, y)
                        for p, w, y in SWIFT_RULES]

# --------------------------------------------------------------------------------------------
# Swift #if evaluation

class ConditionError(Exception):
    pass


def tokenize_condition(text):
    tokens = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("&&", i) or text.startswith("||", i):
            tokens.append(text[i:i + 2]); i += 2
        elif c in "()!":
            tokens.append(c); i += 1
        else:
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text[i:])
            if not m:
                raise ConditionError("cannot read %r" % text[i:])
            name = m.group(0)
            i += len(name)
            if i < len(text) and text[i] == "(" and name in ("os", "canImport", "targetEnvironment", "arch",
                                                              "compiler", "swift", "hasFeature", "hasAttribute",
                                                              "_endian", "_pointerBitWidth", "_runtime"):
                depth, j = 0, i
                while j < len(text):
                    if text[j] == "(":
                        depth += 1
                    elif text[j] == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                tokens.append(("call", name, text[i + 1:j].strip()))
                i = j + 1
            else:
                tokens.append(("flag", name))
    return tokens


def parse_version(s):
    return tuple(int(x) for x in s.split("."))


def eval_swift_condition(text, platform, local_modules):
    """Evaluates a Swift compilation condition for `platform`; returns (value, uses) where uses
    lists (kind, argument) pairs seen."""
    tokens = tokenize_condition(text)
    pos = [0]
    uses = []

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def take():
        t = peek(); pos[0] += 1; return t

    def atom():
        t = take()
        if t is None:
            raise ConditionError("unexpected end of condition")
        if t == "!":
            return not atom()
        if t == "(":
            v = expr()
            if take() != ")":
                raise ConditionError("missing )")
            return v
        if isinstance(t, tuple) and t[0] == "call":
            _, name, arg = t
            uses.append((name, arg))
            if name == "os":
                arg = OS_ALIASES.get(arg, arg)
                known = set(OS_NAME.values()) | {"Android", "Windows", "FreeBSD", "OpenBSD", "WASI", "Cygwin", "Haiku"}
                if arg not in known:
                    raise ConditionError("unknown os(%s)" % arg)
                return OS_NAME[platform] == arg
            if name == "canImport":
                module = arg.split(",")[0].strip()
                if module in local_modules:
                    return platform == "Linux" and local_modules[module]
                return module in MODULES[platform]
            if name == "targetEnvironment":
                if arg == "macCatalyst":
                    return platform == "macCatalyst"
                if arg == "simulator":
                    return False
                raise ConditionError("unknown targetEnvironment(%s)" % arg)
            if name == "arch":
                return ARCH[platform] == arg
            if name in ("compiler", "swift"):
                m = re.match(r"(>=|<)\s*([0-9.]+)$", arg)
                if not m:
                    raise ConditionError("cannot read %s(%s)" % (name, arg))
                have = COMPILER[platform]
                want = parse_version(m.group(2))
                return have >= want if m.group(1) == ">=" else have < want
            if name == "_endian":
                return arg == "little"
            if name == "_pointerBitWidth":
                return arg == "_64"
            if name == "_runtime":
                return (arg == "_ObjC") == (platform != "Linux")
            if name in ("hasFeature", "hasAttribute"):
                raise ConditionError("%s(%s) cannot be decided per platform here" % (name, arg))
        if isinstance(t, tuple) and t[0] == "flag":
            if t[1] in ("true", "false"):
                return t[1] == "true"
            uses.append(("flag", t[1]))
            return t[1] in ("DEBUG",) and False
        raise ConditionError("unexpected %r" % (t,))

    def conj():
        v = atom()
        while peek() == "&&":
            take(); r = atom(); v = v and r
        return v

    def expr():
        v = conj()
        while peek() == "||":
            take(); r = conj(); v = v or r
        return v

    value = expr()
    if peek() is not None:
        raise ConditionError("trailing tokens in %r" % text)
    return value, uses


# --------------------------------------------------------------------------------------------
# Source scanning: blank out comments and string literals, keep line structure

def strip_swift(source, keep_strings=False):
    out = []
    i, n = 0, len(source)
    depth = 0  # block comment nesting
    while i < n:
        c = source[i]
        if depth:
            if source.startswith("/*", i):
                depth += 1; out.append("  "); i += 2
            elif source.startswith("*/", i):
                depth -= 1; out.append("  "); i += 2
            else:
                out.append("\n" if c == "\n" else " "); i += 1
        elif source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif source.startswith("/*", i):
            depth = 1; out.append("  "); i += 2
        elif c == '"' or (c == "#" and re.match(r'#+"', source[i:])):
            hashes = 0
            while source[i + hashes] == "#":
                hashes += 1
            start = i
            i += hashes
            multi = source.startswith('"""', i)
            quote = '"""' if multi else '"'
            i += len(quote)
            close = quote + "#" * hashes
            while i < n:
                if hashes == 0 and source[i] == "\\":
                    i += 2; continue
                if source.startswith(close, i):
                    i += len(close); break
                if not multi and source[i] == "\n":
                    break
                i += 1
            text = source[start:i]
            if keep_strings:
                out.append(text)
                continue
            out.append("".join("\n" if ch == "\n" else ('"' if k in (0, len(text) - 1) else " ") for k, ch in enumerate(text)))
        else:
            out.append(c); i += 1
    return "".join(out)


def strip_c(source):
    out = []
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i); j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2); j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in source[i:j])); i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] != '"' and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append('"' + " " * (j - i - 1) + '"'); i = j + 1
        else:
            out.append(source[i]); i += 1
    return "".join(out)


class Finding:
    def __init__(self, path, line, platform, message):
        self.path, self.line, self.platform, self.message = path, line, platform, message

    def __str__(self):
        where = "%s:%d" % (self.path, self.line)
        return "%s: [%s] %s" % (where, self.platform, self.message)


def active_lines_swift(path, code, platform, local_modules, findings):
    """Returns the set of 1-based line numbers compiled on `platform`, and the directives seen."""
    lines = code.split("\n")
    stack = []  # (parent_active, branch_taken, this_active)
    active = set()
    directives = []
    current = True
    for number, raw in enumerate(lines, 1):
        s = raw.strip()
        m = re.match(r"#(if|elseif|else|endif)\b(.*)$", s)
        if m:
            kind, cond = m.group(1), m.group(2).strip()
            directives.append((number, kind, cond))
            try:
                if kind == "if":
                    value, _ = eval_swift_condition(cond, platform, local_modules)
                    stack.append([current, value, current and value])
                    current = current and value
                elif kind == "elseif":
                    if not stack:
                        raise ConditionError("#elseif without #if")
                    parent, taken, _ = stack[-1]
                    value, _ = eval_swift_condition(cond, platform, local_modules)
                    this = parent and not taken and value
                    stack[-1] = [parent, taken or value, this]
                    current = this
                elif kind == "else":
                    if not stack:
                        raise ConditionError("#else without #if")
                    parent, taken, _ = stack[-1]
                    this = parent and not taken
                    stack[-1] = [parent, True, this]
                    current = this
                else:
                    if not stack:
                        raise ConditionError("#endif without #if")
                    parent, _, _ = stack.pop()
                    current = parent
            except ConditionError as e:
                findings.append(Finding(path, number, platform, "cannot evaluate the condition: %s" % e))
            continue
        if current:
            active.add(number)
    if stack:
        findings.append(Finding(path, len(lines), platform, "unterminated #if"))
    return active, directives


def eval_c_condition(text, macros):
    expr = text
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)", lambda m: "1" if m.group(1) in macros else "0", expr)
    expr = re.sub(r"defined\s+(\w+)", lambda m: "1" if m.group(1) in macros else "0", expr)
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(macros.get(m.group(0), 0)), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    if not re.fullmatch(r"[\d\s()<>=!andotr]*", expr):
        raise ConditionError("cannot evaluate %r" % text)
    return bool(eval(expr, {"__builtins__": {}}, {}))


def active_lines_c(path, code, platform, findings):
    macros = c_macros(platform)
    lines = code.split("\n")
    stack, current, active = [], True, set()
    includes_target_conditionals = False
    for number, raw in enumerate(lines, 1):
        s = raw.strip()
        m = re.match(r"#\s*(if|ifdef|ifndef|elif|else|endif|define|include)\b(.*)$", s)
        if m:
            kind, rest = m.group(1), m.group(2).strip()
            try:
                if kind in ("if", "ifdef", "ifndef"):
                    if kind == "ifdef":
                        value = rest in macros
                    elif kind == "ifndef":
                        value = rest not in macros
                    else:
                        if "TARGET_OS_" in rest and not includes_target_conditionals and platform != "Linux":
                            findings.append(Finding(path, number, platform, "TARGET_OS_* used before #include <TargetConditionals.h>"))
                        value = eval_c_condition(rest, macros)
                    stack.append([current, value, current and value]); current = current and value
                elif kind == "elif":
                    parent, taken, _ = stack[-1]
                    value = eval_c_condition(rest, macros)
                    this = parent and not taken and value
                    stack[-1] = [parent, taken or value, this]; current = this
                elif kind == "else":
                    parent, taken, _ = stack[-1]
                    this = parent and not taken
                    stack[-1] = [parent, True, this]; current = this
                elif kind == "endif":
                    current = stack.pop()[0]
                elif kind == "define" and current:
                    parts = rest.split(None, 1)
                    if parts and "(" not in parts[0]:
                        macros[parts[0]] = 1
                elif kind == "include" and current:
                    if "TargetConditionals.h" in rest:
                        includes_target_conditionals = True
                    if current:
                        active.add(number)
            except (ConditionError, IndexError) as e:
                findings.append(Finding(path, number, platform, "cannot evaluate the condition: %s" % e))
            continue
        if current:
            active.add(number)
    return active


# --------------------------------------------------------------------------------------------
# The package

def local_module_names(root):
    """This package's own modules: every folder under Sources/ (and Tests/)."""
    names = {}
    for top in ("Sources", "Tests"):
        d = os.path.join(root, top)
        if os.path.isdir(d):
            for name in os.listdir(d):
                if os.path.isdir(os.path.join(d, name)):
                    names[name.replace("-", "_")] = True
    return names


def executable_targets(root):
    pkg = os.path.join(root, "Package.swift")
    if not os.path.exists(pkg):
        return set()
    text = open(pkg, encoding="utf-8").read()
    return set(re.findall(r'\.executableTarget\(\s*name:\s*"([^"]+)"', text))


def target_of(rel):
    parts = rel.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] in ("Sources", "Tests") else None


def is_whole_file_guard(directives, code):
    """Whether the file's only top-level #if wraps all of its code (a file for some platforms)."""
    lines = code.split("\n")
    significant = [i for i, l in enumerate(lines, 1) if l.strip()]
    if not significant or not directives:
        return False
    first, last = significant[0], significant[-1]
    if directives[0][0] != first or directives[0][1] != "if":
        return False
    depth = 0
    for number, kind, _ in directives:
        if kind == "if":
            depth += 1
        elif kind == "endif":
            depth -= 1
            if depth == 0:
                return number == last
    return False


# --------------------------------------------------------------------------------------------
# This package's own declarations that exist on some platforms only

# A type declaration (attributes and modifiers allowed); group 1 is the indentation, 2 the
# access level, 3 the name. Functions are left out: their lower-case names (`log`, `field`)
# also name locals and labels.
DECLARATION = re.compile(r"^(\s*)(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(public|package|internal|fileprivate|private|open)\s+)?"
                         r"(?:(?:final|indirect|nonisolated)\s+)*(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)")


def declared_platforms(parsed):
    """Type name -> platforms on which some declaration of it is compiled, for the names not
    compiled everywhere. A name declared twice (two targets, or `#if`/`#else` halves) counts as
    declared wherever either is, so a clash can hide a problem but never invent one."""
    where = {}
    for rel, (_, code, actives) in parsed.items():
        for number, text in enumerate(code.split("\n"), 1):
            m = DECLARATION.match(text)
            # Only top-level declarations other files can see: a private one is the file's own.
            if not m or m.group(1) or m.group(2) in ("private", "fileprivate"):
                continue
            seen = where.setdefault(m.group(3), set())
            for platform, (active, _) in actives.items():
                if number in active:
                    seen.add(platform)
    return {name: platforms for name, platforms in where.items() if platforms != set(PLATFORMS)}


def check_declarations(rel, code, actives, restricted, findings):
    """Uses of a restricted type on a platform where no declaration of it is compiled. A file
    that declares a type of that name itself (nested, or private) means its own."""
    lines = code.split("\n")
    own = {m.group(3) for m in (DECLARATION.match(t) for t in lines) if m}
    names = sorted(set(restricted) - own)
    if not names:
        return
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\b")
    for number, text in enumerate(lines, 1):
        for m in pattern.finditer(text):
            name = m.group(1)
            for platform, (active, _) in actives.items():
                if number in active and platform not in restricted[name]:
                    findings.append(Finding(rel, number, platform,
                        "%s is declared in this package only for %s: guard this use the same way (a test file for some platforms: a whole-file #if): %s"
                        % (name, ", ".join(p for p in PLATFORMS if p in restricted[name]), text.strip()[:100])))


def parse_swift_files(root, local, findings):
    """Every Swift file under Sources/ and Tests/: rel -> (source, code without comments and
    strings, {platform: (active lines, directives)}), each #if evaluated once per platform."""
    parsed = {}
    for top in ("Sources", "Tests"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                source = open(path, encoding="utf-8").read()
                code = strip_swift(source)
                parsed[rel] = (source, code, {p: active_lines_swift(rel, code, p, local, findings) for p in PLATFORMS})
    return parsed


def check_tree(root):
    findings = []
    local = local_module_names(root)
    executables = executable_targets(root)
    mains = {}  # (target, platform) -> [(path, line)]
    targets = deployment_targets(root)
    parsed = parse_swift_files(root, local, findings)
    restricted = declared_platforms(parsed)
    for rel, (source, code, actives) in sorted(parsed.items()):
        check_swift(rel, source, local, mains, findings, targets, actives)
        check_declarations(rel, code, actives, restricted, findings)
    for top in ("Sources", "Tests"):
        base = os.path.join(root, top)
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    check_c(os.path.relpath(path, root), open(path, encoding="utf-8").read(), findings)
    findings.extend(check_privacy(root, local))
    for (target, platform), sites in sorted(mains.items()):
        files = sorted(set(p for p, _ in sites))
        has_main_swift = any(os.path.basename(p) == "main.swift" for p in files)
        count = len(sites) + 0
        if target in executables or has_main_swift:
            if count > 1:
                findings.append(Finding(files[0], sites[0][1], platform,
                                        "executable target %s has %d entry points (@main / main.swift): %s" % (target, count, ", ".join(files))))
    return findings


def check_swift(rel, source, local, mains, findings, targets=None, actives=None):
    """`actives`: each platform's (active lines, directives), when already evaluated (the
    evaluation's own findings were recorded then)."""
    code = strip_swift(source)
    lines = code.split("\n")
    with_strings = strip_swift(source, keep_strings=True).split("\n")
    target = target_of(rel)
    directives_seen = None
    # Which rules each line matches does not depend on the platform: match once.
    hits = {}
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        for index, (pattern, where, why) in enumerate(COMPILED_SWIFT_RULES):
            subject = with_strings[number - 1] if pattern[1] else text
            if pattern[0].search(subject):
                hits.setdefault(number, []).append(index)
    active_by_platform = {}
    for platform in PLATFORMS:
        active, directives = actives[platform] if actives else active_lines_swift(rel, code, platform, local, findings)
        directives_seen = directives
        if platform in APPLE:
            active_by_platform[platform] = active
        for number in sorted(active):
            text = lines[number - 1]
            for index in hits.get(number, []):
                _, where, why = COMPILED_SWIFT_RULES[index]
                if platform in where:
                    findings.append(Finding(rel, number, platform, "%s: %s" % (why, text.strip()[:100])))
            if target and text.lstrip().startswith("@main"):
                mains.setdefault((target, platform), []).append((rel, number))
        if os.path.basename(rel) == "main.swift" and target:
            if any(lines[i - 1].strip() for i in active):
                mains.setdefault((target, platform), []).append((rel, 1))
    check_availability(rel, code, active_by_platform, targets or DEFAULT_TARGETS, findings)
    # Package rules, platform-independent.
    for number, kind, cond in directives_seen or []:
        if kind in ("if", "elseif"):
            for module in re.findall(r"canImport\(\s*(\w+)", cond):
                if module in local:
                    findings.append(Finding(rel, number, "all", "canImport(%s) names this package's own module: its answer follows a Package.swift condition, not the platform; use os(...) in the target's Platform/ folder" % module))
            if re.search(r"\bos\(", cond) and rel.startswith("Sources" + os.sep):
                if ("%sPlatform%s" % (os.sep, os.sep)) not in rel and not is_whole_file_guard(directives_seen, code):
                    findings.append(Finding(rel, number, "all", "a platform decision (#%s %s) outside the target's Platform/ folder" % (kind, cond)))


def check_c(rel, source, findings):
    code = strip_c(source)
    lines = code.split("\n")
    for platform in PLATFORMS:
        active = active_lines_c(rel, code, platform, findings)
        for number in sorted(active):
            text = lines[number - 1]
            if text.strip().startswith("#"):
                continue
            for pattern, where, why in C_RULES:
                if platform in where and re.search(pattern, text):
                    findings.append(Finding(rel, number, platform, "%s: %s" % (why, text.strip()[:100])))


# --------------------------------------------------------------------------------------------
# Privacy manifests (developer.apple.com/documentation/bundleresources/describing-use-of-required-reason-api)

# Where Apple requires the reasons: apps for iOS, iPadOS (Mac Catalyst), tvOS, watchOS, visionOS.
PRIVACY_PLATFORMS = ["iOS", "macCatalyst", "tvOS", "watchOS", "visionOS"]

# Category -> (the APIs Apple lists, as a pattern on code without comments and strings; approved reasons).
REQUIRED_REASON_APIS = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        r"\b(creationDate|modificationDate|fileModificationDate|contentModificationDate|creationDateKey|contentModificationDateKey)\b"
        r"|\b(f?getattrlist(bulk|at)?|stat|fstat|fstatat|lstat)\s*\(",
        {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"}),
    "NSPrivacyAccessedAPICategorySystemBootTime": (
        r"\bsystemUptime\b|\bmach_absolute_time\s*\(",
        {"35F9.1", "8FFB.1", "3D61.1"}),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        r"\bvolume(AvailableCapacity(ForImportantUsage|ForOpportunisticUsage)?|TotalCapacity)(Key)?\b"
        r"|\bsystem(Free)?Size\b|\bNSFileSystem(Free)?Size\b|\bf?statv?fs\s*\(",
        {"85F4.1", "E174.1", "7D9E.1", "B728.1"}),
    "NSPrivacyAccessedAPICategoryUserDefaults": (
        r"\b(NS)?UserDefaults\b|@AppStorage\b",
        {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"}),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": (
        r"\bactiveInputModes\b",
        {"3EC4.1", "54BD.1"}),
}
PRIVACY_KEYS = {"NSPrivacyTracking": bool, "NSPrivacyTrackingDomains": list,
                "NSPrivacyCollectedDataTypes": list, "NSPrivacyAccessedAPITypes": list}


def package_targets(root):
    """Package.swift's targets: name -> (kind, [dependencies built for Apple platforms], source text)."""
    path = os.path.join(root, "Package.swift")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    targets = {}
    for m in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary|binaryTarget)\(", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        block = text[m.end():i]
        name = re.match(r'\s*name:\s*"([^"]+)"', block)
        if not name:
            continue
        deps = []
        d = re.search(r"dependencies:\s*\[", block)
        if d:
            j, level = d.end(), 1
            while j < len(block) and level:
                level += {"[": 1, "]": -1}.get(block[j], 0)
                j += 1
            pattern = (r'\.(?:target|product)\(\s*name:\s*"([^"]+)"(?:\s*,\s*package:\s*"[^"]*")?'
                       r'(?:\s*,\s*condition:\s*\.when\(\s*platforms:\s*\[([^\]]*)\]\s*\))?\s*\)|"([^"]+)"')
            for item in re.finditer(pattern, block[d.end():j - 1]):
                if item.group(3):
                    deps.append(item.group(3))
                elif item.group(2) is None or re.search(r"\.(macOS|iOS|tvOS|watchOS|visionOS|macCatalyst)\b", item.group(2)):
                    deps.append(item.group(1))
        targets[name.group(1)] = (m.group(1), deps, block)
    products = re.findall(r'\.library\(\s*name:\s*"[^"]+",\s*(?:type:\s*\.\w+,\s*)?targets:\s*\[([^\]]*)\]', text)
    return targets, [t for p in products for t in re.findall(r'"([^"]+)"', p)]


def embedded_targets(root):
    """Every target an app links through one of the library products (Apple conditions only)."""
    targets, roots = package_targets(root)
    seen, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        stack.extend(targets[name][1])
    return targets, sorted(seen)


def check_privacy(root, local):
    findings = []
    targets, embedded = embedded_targets(root)
    for target in embedded:
        kind, _, block = targets[target]
        folder = os.path.join(root, "Sources", target)
        if kind != "target" or not os.path.isdir(folder):
            continue
        used = {}  # category -> first (path, line, text)
        for dirpath, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                code = strip_swift(open(path, encoding="utf-8").read())
                lines = code.split("\n")
                active = set()
                for platform in PRIVACY_PLATFORMS:
                    active |= active_lines_swift(rel, code, platform, local, [])[0]
                for number in sorted(active):
                    for category, (pattern, _) in REQUIRED_REASON_APIS.items():
                        if category not in used and re.search(pattern, lines[number - 1]):
                            used[category] = (rel, number, lines[number - 1].strip()[:80])
        manifest_rel = os.path.join("Sources", target, "PrivacyInfo.xcprivacy")
        manifest_path = os.path.join(root, manifest_rel)
        if not os.path.exists(manifest_path):
            for category, (rel, number, text) in sorted(used.items()):
                findings.append(Finding(rel, number, "Apple", "%s is a required-reason API (%s) compiled for apps, and %s has no %s: add one declaring the category with an approved reason" % (text, category, target, manifest_rel)))
            continue
        if not re.search(r'resources:\s*\[[^\]]*"PrivacyInfo\.xcprivacy"', block):
            findings.append(Finding("Package.swift", 1, "Apple", "%s is not a resource of target %s: add resources: [.copy(\"PrivacyInfo.xcprivacy\")]" % (manifest_rel, target)))
        try:
            with open(manifest_path, "rb") as f:
                plist = plistlib.load(f)
        except Exception as e:
            findings.append(Finding(manifest_rel, 1, "Apple", "not a valid property list: %s" % e))
            continue
        if not isinstance(plist, dict):
            findings.append(Finding(manifest_rel, 1, "Apple", "the top level must be a dictionary"))
            continue
        for key, value in plist.items():
            if key not in PRIVACY_KEYS:
                findings.append(Finding(manifest_rel, 1, "Apple", "unexpected key %s (App Store Connect rejects unexpected keys)" % key))
            elif not isinstance(value, PRIVACY_KEYS[key]):
                findings.append(Finding(manifest_rel, 1, "Apple", "%s must be a %s" % (key, PRIVACY_KEYS[key].__name__)))
        declared = {}
        for entry in plist.get("NSPrivacyAccessedAPITypes", []) if isinstance(plist.get("NSPrivacyAccessedAPITypes"), list) else []:
            category = entry.get("NSPrivacyAccessedAPIType") if isinstance(entry, dict) else None
            reasons = entry.get("NSPrivacyAccessedAPITypeReasons") if isinstance(entry, dict) else None
            if category not in REQUIRED_REASON_APIS:
                findings.append(Finding(manifest_rel, 1, "Apple", "unknown NSPrivacyAccessedAPIType %r" % category))
                continue
            approved = REQUIRED_REASON_APIS[category][1]
            if not isinstance(reasons, list) or not reasons or any(r not in approved for r in reasons):
                findings.append(Finding(manifest_rel, 1, "Apple", "%s needs one or more of the approved reasons %s, got %r" % (category, ", ".join(sorted(approved)), reasons)))
            declared[category] = reasons
        for category, (rel, number, text) in sorted(used.items()):
            if category not in declared:
                findings.append(Finding(rel, number, "Apple", "%s is a required-reason API (%s) compiled for apps: declare the category with an approved reason in %s" % (text, category, manifest_rel)))
        for category in sorted(set(declared) - set(used)):
            findings.append(Finding(manifest_rel, 1, "Apple", "%s is declared but no code of %s compiled for apps uses it: remove it" % (category, target)))
    return findings


# --------------------------------------------------------------------------------------------
# Self-test: known-bad snippets must be flagged, known-good ones must not

BAD = {
    "unguarded Glibc call": ("Sources/A/Platform/X.swift", "import Foundation\nlet n = Glibc.send(fd, p, c, 0)\n", "Glibc"),
    "MSG_NOSIGNAL in the shared part": ("Sources/A/X.swift",
        "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif\nlet f = Int32(MSG_NOSIGNAL)\n", "MSG_NOSIGNAL"),
    "SOCK_STREAM.rawValue": ("Sources/A/X.swift", "let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)\n", "SOCK_STREAM"),
    "Process in a Darwin branch reaches iOS": ("Sources/A/X.swift",
        "#if canImport(Darwin)\nlet p = Process()\n#endif\n", "Foundation.Process"),
    "Process on Linux": ("Sources/A/X.swift", "#if os(Linux)\nlet p = Process()\n#endif\n", "Foundation.Process"),
    "Process under !os(iOS) reaches tvOS": ("Sources/A/Platform/X.swift",
        "#if !os(iOS)\nlet p = Foundation.Process()\n#endif\n", "Foundation.Process"),
    "#elseif branch": ("Sources/A/Platform/X.swift",
        "#if os(Linux)\nlet a = 1\n#elseif os(macOS) || os(iOS)\nlet b = epoll_create(1)\n#endif\n", "Linux-only"),
    "nested #if": ("Sources/A/Platform/X.swift",
        "#if canImport(Darwin)\n#if !os(macOS)\nlet x = wait4(1, nil, 0, nil)\n#endif\n#endif\n", "prohibited on tvOS"),
    "two @main in one executable": ("Sources/tool/A.swift", "@main struct A { static func main() {} }\n", "entry points"),
    "CryptoKit on Linux": ("Sources/A/X.swift", "import CryptoKit\n", "CryptoKit"),
    "st_mtim on Apple": ("Sources/A/X.swift", "let t = info.st_mtim.tv_sec\n", "st_mtimespec"),
    "/proc on Apple": ("Sources/A/X.swift", 'let s = try String(contentsOfFile: "/proc/self/status")\n', "/proc"),
    "canImport of a package module": ("Sources/A/X.swift", "#if canImport(A)\nlet x = 1\n#endif\n", "own module"),
    "os() outside Platform/": ("Sources/A/X.swift", "let a = 1\n#if os(iOS)\nlet b = 2\n#endif\n", "outside the target's Platform"),
    "@Observable": ("Sources/A/X.swift", "@Observable final class M {}\n", "Observation"),
    "unknown condition": ("Sources/A/Platform/X.swift", "#if os(Solaris2)\nlet x = 1\n#endif\n", "cannot evaluate"),
    "an API above the deployment target": ("Sources/A/X.swift", "let s = String(validating: b, as: UTF8.self)\n", "String(validating:as:) needs iOS 18"),
    "#available(iOS 18, *) still compiles it for macOS 13": ("Sources/A/X.swift",
        "func f(b: [UInt8]) {\n    if #available(iOS 18, *) {\n        _ = String(validating: b, as: UTF8.self)\n    }\n}\n", "needs macOS 15"),
    "the else branch of #available is not guarded": ("Sources/A/X.swift",
        "func f() async {\n    if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {\n    } else {\n        await withDiscardingTaskGroup { _ in }\n    }\n}\n",
        "withDiscardingTaskGroup needs"),
    "a guard too low for the API": ("Sources/A/X.swift",
        "func f(b: [UInt8]) {\n    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) else { return }\n    _ = String(validating: b, as: UTF8.self)\n}\n",
        "needs macOS 15"),
    "Mutex": ("Sources/A/X.swift", "import Synchronization\nlet m = Mutex(0)\n", "Synchronization (Mutex, Atomic) needs"),
    "a test reaches iOS too (Tests/ is read for every platform)": ("Tests/ATests/T.swift", "let c = ChildProcess()\n", "child processes exist only"),
    "a package type declared for Linux and macOS, used unguarded in a test": ("Tests/ATests/T.swift", "let s = Spawner()\n",
        "Spawner is declared in this package only for macOS, Linux"),
    "performExpiringActivity compiled for macOS": ("Sources/A/Platform/X.swift",
        "#if os(macOS) || os(iOS)\nfunc f() { ProcessInfo.processInfo.performExpiringActivity(withReason: \"r\") { _ in } }\n#endif\n", "API_UNAVAILABLE(macos)"),
    "URLError's resume data on Linux": ("Sources/A/X.swift", "let d = (error as? URLError)?.downloadTaskResumeData\n", "Apple-only Foundation API"),
    "C: posix_spawn unguarded": ("Sources/CShim/s.c", "#include <spawn.h>\nint f(void) { return posix_spawn(0, 0, 0, 0, 0, 0); }\n", "prohibited on tvOS"),
    "C: TARGET_OS without TargetConditionals": ("Sources/CShim/t.c", "#if defined(__APPLE__) && TARGET_OS_OSX\nint x;\n#endif\n", "TargetConditionals"),
    "C: Linux-only call under __APPLE__ || __linux__": ("Sources/CShim/u.c",
        "#if defined(__linux__) || defined(__APPLE__)\nint g(int fd) { return sync_file_range(fd, 0, 0, 0); }\n#endif\n", "Linux-only call"),
}

GOOD = {
    "guarded imports": ("Sources/A/X.swift", "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif\nlet x = 1 // Glibc.send in a comment\n"),
    "Platform/ decision": ("Sources/A/Platform/Y.swift",
        "#if os(Linux)\nlet f = Int32(MSG_NOSIGNAL)\n#elseif os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)\nlet f: Int32 = 0\n#endif\n"),
    "whole-file guard": ("Sources/B/Z.swift", "#if os(Linux)\nimport Glibc\nlet s = \"/proc/self/status\"\n#endif\n"),
    "string mentions": ("Sources/A/S.swift", 'let s = "Process() and Glibc.send and MSG_NOSIGNAL"\n'),
    "ProcessInfo": ("Sources/A/P.swift", "let p = ProcessInfo.processInfo.environment\n"),
    "spawn only on Linux and macOS": ("Sources/A/Platform/C.swift", "#if os(Linux) || os(macOS)\nlet c = ChildProcess()\n#endif\n"),
    "C guarded": ("Sources/CShim/g.c",
        "#if defined(__APPLE__)\n#include <TargetConditionals.h>\n#endif\n#if defined(__linux__) || (defined(__APPLE__) && TARGET_OS_OSX)\nint f(void) { return posix_spawn(0, 0, 0, 0, 0, 0); }\n#endif\n"),
    "one main.swift": ("Sources/tool/main.swift", "print(1)\n"),
    "API above the target inside #available": ("Sources/A/V.swift",
        "func f(b: [UInt8]) -> String? {\n    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {\n        return String(validating: b, as: UTF8.self)\n    }\n    return nil\n}\n"),
    "API above the target after guard #available": ("Sources/A/W.swift",
        "func f(b: [UInt8]) -> String? {\n    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return nil }\n    let s = String(validating: b, as: UTF8.self)\n    return s\n}\n"),
    "API above the target in an @available declaration": ("Sources/A/D.swift",
        "@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)\nfunc f(b: [UInt8]) -> String? {\n    String(validating: b, as: UTF8.self)\n}\n"),
    "API above the target on Linux only": ("Sources/A/L.swift", "#if os(Linux)\nlet s = String(validating: [65], as: UTF8.self)\n#endif\n"),
    "older validating initializers": ("Sources/A/C.swift", "let s = String(validatingCString: p)\nlet t = String(validatingUTF8: q)\n"),
    "a platform-only type used under the same guard": ("Tests/ATests/T.swift", "#if os(Linux) || os(macOS)\nlet s = Spawner()\n#endif\n"),
    "a file's own type of a platform-only type's name": ("Sources/A/C.swift", "struct C {\n    enum Spawner: String { case a }\n    let k = Spawner.a\n}\n"),
    "a member of that name": ("Tests/ATests/U.swift", "let s = Factory.Spawner()\n"),
}

# Files written beside a case's own (label -> {path: text}).
SELF_TEST_EXTRA = {label: {"Sources/A/Platform/Spawn.swift": "#if os(Linux) || os(macOS)\nstruct Spawner {}\n#endif\n"}
                   for label in ["a package type declared for Linux and macOS, used unguarded in a test", "a platform-only type used under the same guard",
                                 "a file's own type of a platform-only type's name", "a member of that name"]}


def run_self_test():
    failures = []
    for label, (rel, text, expected) in BAD.items():
        with tempfile.TemporaryDirectory() as root:
            write(root, rel, text)
            for extra, body in SELF_TEST_EXTRA.get(label, {}).items():
                write(root, extra, body)
            if label.startswith("two @main"):
                write(root, "Sources/tool/B.swift", "@main struct B { static func main() {} }\n")
                write(root, "Package.swift", 'let p = Package(targets: [.executableTarget(name: "tool")])\n')
            os.makedirs(os.path.join(root, "Sources", "A"), exist_ok=True)
            found = check_tree(root)
            if not any(expected in f.message for f in found):
                failures.append("not flagged: %s (expected %r; got %s)" % (label, expected, [str(f) for f in found]))
    for label, (rel, text) in GOOD.items():
        with tempfile.TemporaryDirectory() as root:
            write(root, rel, text)
            for extra, body in SELF_TEST_EXTRA.get(label, {}).items():
                write(root, extra, body)
            write(root, "Package.swift", 'let p = Package(targets: [.executableTarget(name: "tool")])\n')
            found = check_tree(root)
            if found:
                failures.append("false alarm: %s: %s" % (label, [str(f) for f in found]))
    privacy_failures, privacy_cases = privacy_self_test()
    failures.extend(privacy_failures)
    # The evaluator itself.
    local = {"CManashikiShims": True}
    table = [
        ("os(macOS) || os(Linux)", {"macOS": True, "Linux": True, "iOS": False, "tvOS": False, "watchOS": False, "visionOS": False, "macCatalyst": False}),
        ("canImport(Darwin) && !os(macOS)", {"macOS": False, "iOS": True, "macCatalyst": True, "tvOS": True, "Linux": False}),
        ("os(iOS) && !targetEnvironment(macCatalyst)", {"iOS": True, "macCatalyst": False, "visionOS": False}),
        ("canImport(UIKit)", {"iOS": True, "tvOS": True, "visionOS": True, "watchOS": False, "macOS": False}),
        ("compiler(>=6.2)", {"Linux": True, "macOS": False}),
        ("!(os(tvOS) || os(watchOS)) && canImport(Darwin)", {"tvOS": False, "watchOS": False, "iOS": True, "Linux": False}),
        ("canImport(CManashikiShims)", {"Linux": True, "macOS": False}),
    ]
    for cond, expected in table:
        for platform, want in expected.items():
            got, _ = eval_swift_condition(cond, platform, local)
            if got != want:
                failures.append("condition %r on %s: got %s, want %s" % (cond, platform, got, want))
    if failures:
        print("portability self-test FAILED:")
        for f in failures:
            print("  " + f)
        return 1
    print("portability self-test passed: %d known-bad snippets flagged, %d known-good ones clean, %d conditions evaluated, %d privacy-manifest cases"
          % (len(BAD), len(GOOD), sum(len(e) for _, e in table), privacy_cases))
    return 0


def privacy_manifest(entries, extra=""):
    items = "".join("<dict><key>NSPrivacyAccessedAPIType</key><string>%s</string><key>NSPrivacyAccessedAPITypeReasons</key><array><string>%s</string></array></dict>" % e for e in entries)
    return ('<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSPrivacyTracking</key><false/>'
            '<key>NSPrivacyAccessedAPITypes</key><array>%s</array>%s</dict></plist>' % (items, extra))


def privacy_self_test():
    """Each case: (package, {path: text}, text expected in a finding, or None for no finding)."""
    with_resource = ('let p = Package(products: [.library(name: "A", targets: ["A"])], targets: [\n'
                     '  .target(name: "A", dependencies: [.target(name: "L", condition: .when(platforms: [.linux]))], resources: [.copy("PrivacyInfo.xcprivacy")]),\n'
                     '  .target(name: "L"), .target(name: "Unshipped")])\n')
    without_resource = 'let p = Package(products: [.library(name: "A", targets: ["A"])], targets: [.target(name: "A")])\n'
    uses_fstat = {"Sources/A/F.swift": "func f(_ fd: Int32) { var info = stat(); _ = fstat(fd, &info) }\n"}
    timestamp = ("NSPrivacyAccessedAPICategoryFileTimestamp", "C617.1")
    cases = {
        "required-reason API, no manifest": (with_resource, uses_fstat, "has no Sources/A/PrivacyInfo.xcprivacy"),
        "category not declared": (with_resource, dict(uses_fstat, **{"Sources/A/PrivacyInfo.xcprivacy": privacy_manifest([("NSPrivacyAccessedAPICategoryDiskSpace", "E174.1")])}), "declare the category"),
        "reason not approved": (with_resource, dict(uses_fstat, **{"Sources/A/PrivacyInfo.xcprivacy": privacy_manifest([("NSPrivacyAccessedAPICategoryFileTimestamp", "E174.1")])}), "approved reasons"),
        "unexpected key": (with_resource, dict(uses_fstat, **{"Sources/A/PrivacyInfo.xcprivacy": privacy_manifest([timestamp], "<key>NSPrivacyTrackingDomain</key><array/>")}), "unexpected key"),
        "not a resource": (without_resource, dict(uses_fstat, **{"Sources/A/PrivacyInfo.xcprivacy": privacy_manifest([timestamp])}), "is not a resource"),
        "declared, unused": (with_resource, {"Sources/A/F.swift": "let x = 1\n", "Sources/A/PrivacyInfo.xcprivacy": privacy_manifest([timestamp])}, "declared but no code"),
        "disk space through a shipped dependency": (with_resource.replace('condition: .when(platforms: [.linux])', 'condition: .when(platforms: [.iOS])'),
            {"Sources/L/D.swift": "let v = statvfs()\nlet r = statvfs(path, &v)\n"}, "Sources/L/PrivacyInfo.xcprivacy"),
        "declared and used": (with_resource, dict(uses_fstat, **{"Sources/A/PrivacyInfo.xcprivacy": privacy_manifest([timestamp])}), None),
        "Linux-only code": (with_resource, {"Sources/A/Platform/F.swift": "#if os(Linux)\nlet r = fstat(fd, &info)\n#endif\n"}, None),
        "a Linux-only dependency": (with_resource, {"Sources/L/D.swift": "let r = statvfs(path, &v)\n"}, None),
        "a target no product ships": (with_resource, {"Sources/Unshipped/D.swift": "let d = UserDefaults.standard\n"}, None),
        "in a comment or a string": (with_resource, {"Sources/A/C.swift": '// fstat(fd, &info)\nlet s = "UserDefaults"\n'}, None),
    }
    failures = []
    for label, (package, files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            write(root, "Package.swift", package)
            for rel, text in files.items():
                write(root, rel, text)
            found = [str(f) for f in check_privacy(root, local_module_names(root))]
            if expected is None and found:
                failures.append("privacy false alarm: %s: %s" % (label, found))
            elif expected is not None and not any(expected in f for f in found):
                failures.append("privacy not flagged: %s (expected %r; got %s)" % (label, expected, found))
    return failures, len(cases)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def apply_known(root, findings):
    """Findings listed in .ci/portability-known.txt (`path | text in the message | why`) are
    printed but do not fail, so a problem owned by another change can be tracked without
    hiding it; an entry that matches nothing fails, so the list cannot go stale."""
    path = os.path.join(root, ".ci", "portability-known.txt")
    if not os.path.exists(path):
        return findings
    remaining = list(findings)
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [x.strip() for x in line.split("|")]
        if len(parts) != 3:
            remaining.append(Finding(".ci/portability-known.txt", number, "all", "write `path | text in the message | why`"))
            continue
        where, text, why = parts
        matched = [f for f in remaining if f.path == where and text in f.message]
        if not matched:
            remaining.append(Finding(".ci/portability-known.txt", number, "all",
                                     "stale entry (nothing matches it any more): remove it: %s" % line))
            continue
        print("known (%s): %s: %s on %s" % (why, where, text, ", ".join(sorted(set(f.platform for f in matched)))))
        remaining = [f for f in remaining if f not in matched]
    return remaining


def main(argv):
    if "--self-test" in argv:
        return run_self_test()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    for a in argv[1:]:
        if not a.startswith("--"):
            root = os.path.abspath(a)
    findings = check_tree(root)
    findings = apply_known(root, findings)
    if findings:
        print("portability check: %d problem(s) (platforms: %s)" % (len(findings), ", ".join(PLATFORMS)))
        for f in findings:
            print("  " + str(f))
        return 1
    print("portability check passed: every #if in Sources/ and Tests/ (tests included) evaluated for %s" % ", ".join(PLATFORMS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
