#!/usr/bin/env python3
"""Function-length check: no function in Sources/ is longer than LIMIT (80) lines unless the
comment directly above it says why.

A function is a `func`, `init`, `deinit`, `subscript`, or a computed property / accessor
(`var name: Type {`), measured from its declaration line to its closing brace by brace matching
(braces in comments, string literals, multi-line and raw strings do not count). The reason is a
line `// Long because: <why>` in the comment and attribute lines directly above the declaration
(above or below its doc comment); an empty reason does not count. docs/development.md,
"Function length".

    python3 .ci/function-length.py              # check Sources/; exit 1 on findings
    python3 .ci/function-length.py --list N     # the N longest functions, reasons or not
    python3 .ci/function-length.py --self-test  # prove the check fails on known-bad code

Run by .ci/run beside the portability checks, before the build.
"""
import os
import re
import sys
import tempfile

LIMIT = 80
REASON = re.compile(r'^\s*//\s*Long because:\s*\S')
MODIFIERS = (r'(?:(?:public|package|internal|private|fileprivate|open|static|class|final|override|mutating|nonmutating|'
             r'nonisolated|convenience|required|dynamic|lazy|weak|unowned|indirect)(?:\([^)]*\))?\s+)*')
ATTRIBUTES = r'(?:@\w+(?:\([^)]*\))?\s+)*'
DECL = re.compile(r'^\s*' + ATTRIBUTES + MODIFIERS + r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript|var\s+\w+\s*:[^=]*\{\s*$)')


def code_lines(text):
    """The lines of `text` with comments and the contents of string literals removed."""
    out, state = [], {"block": 0, "string": None}
    for line in text.splitlines():
        out.append(_strip(line, state))
    return out


def _strip(line, state):
    kept, i, n = [], 0, len(line)
    while i < n:
        if state["block"]:
            if line.startswith("/*", i): state["block"] += 1; i += 2; continue
            if line.startswith("*/", i): state["block"] -= 1; i += 2; continue
            i += 1; continue
        if state["string"] is not None:
            close, escapable = state["string"]
            if escapable and line[i] == "\\": i += 2; continue
            if line.startswith(close, i):
                state["string"] = None; kept.append('""'); i += len(close); continue
            i += 1; continue
        if line.startswith("/*", i): state["block"] = 1; i += 2; continue
        if line.startswith("//", i): break
        m = re.match(r'(#*)("""|")', line[i:])
        if m:
            hashes, quote = m.group(1), m.group(2)
            # A raw string's escapes need the hashes too; `\` alone is a plain character there.
            state["string"] = (quote + hashes, not hashes)
            i += len(m.group(0))
            if quote == '"""':
                # Everything up to the closing delimiter, on later lines, is the string.
                rest = line[i:]
                end = rest.find('"""' + hashes)
                if end < 0: return "".join(kept)
                state["string"] = None; kept.append('""'); i += end + 3 + len(hashes)
            continue
        kept.append(line[i]); i += 1
    if state["string"] is not None and not state["string"][0].startswith('"""'):
        state["string"] = None  # only a multi-line string spans lines
    return "".join(kept)


def functions(text):
    """(first line, length, name, has reason) of each function in `text`."""
    raw = text.splitlines()
    code = code_lines(text)
    found = []
    for n, line in enumerate(code):
        m = DECL.match(line)
        if not m: continue
        depth, started, end = 0, False, None
        for k in range(n, len(code)):
            for ch in code[k]:
                if ch == "{": depth += 1; started = True
                elif ch == "}": depth -= 1
                if started and depth == 0: end = k; break
            if end is not None: break
            if not started and k > n + 12: break  # a protocol requirement: no body
        if end is None: continue
        found.append((n + 1, end - n + 1, m.group(1).split("{")[0].strip(), has_reason(raw, n)))
    return found


def has_reason(raw, n):
    """Whether the comment and attribute lines directly above line `n` hold a reason."""
    k = n - 1
    while k >= 0:
        line = raw[k].strip()
        if not (line.startswith("//") or line.startswith("@")): break
        if REASON.match(line): return True
        k -= 1
    return False


def check(root, limit=LIMIT):
    """The findings under `root`: (path, line, length, name), longest first."""
    findings, all_functions = [], []
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".swift"): continue
            path = os.path.join(directory, f)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for line, length, name, reason in functions(text):
                all_functions.append((length, path, line, name, reason))
                if length > limit and not reason: findings.append((length, path, line, name))
    findings.sort(key=lambda x: (-x[0], x[1], x[2]))
    all_functions.sort(key=lambda x: (-x[0], x[1], x[2]))
    return findings, all_functions


def body(lines):
    return "\n".join("        let x%d = %d" % (i, i) for i in range(lines))


SELF_TEST = [
    # (name, source, expected number of findings)
    ("81 lines, no reason", "func long() {\n%s\n}\n" % body(79), 1),
    ("80 lines", "func fits() {\n%s\n}\n" % body(78), 0),
    ("81 lines, a reason above", "// Long because: a table of every status code\nfunc table() {\n%s\n}\n" % body(79), 0),
    ("a reason above the doc comment and attribute",
     "// Long because: one switch over every case\n/// Doc.\n@discardableResult\npublic static func f() -> Int {\n%s\n return 1\n}\n" % body(79), 0),
    ("an empty reason", "// Long because:\nfunc long() {\n%s\n}\n" % body(79), 1),
    ("a reason separated by a blank line", "// Long because: x\n\nfunc long() {\n%s\n}\n" % body(79), 1),
    ("a long init", "struct S {\n    init(a: Int) {\n%s\n    }\n}\n" % body(79), 1),
    ("a long computed property", "struct S {\n    var text: String {\n%s\n        return \"\"\n    }\n}\n" % body(79), 1),
    ("braces in strings and comments do not end the function",
     "func long() {\n    let a = \"}\"\n    // }\n    /* } */\n    let b = #\"}\"\"#\n    let c = \"\"\"\n    }\n    \"\"\"\n%s\n}\n" % body(73), 1),
    ("a brace in a string does not open one", "func short() {\n    let a = \"{\"\n}\n%s\n" % body(90), 0),
    ("a protocol requirement has no body", "protocol P {\n    func f()\n}\n%s\n" % body(90), 0),
]


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, source, expected) in enumerate(SELF_TEST):
            folder = os.path.join(tmp, str(i))
            os.makedirs(folder)
            with open(os.path.join(folder, "Case.swift"), "w", encoding="utf-8") as handle:
                handle.write(source)
            got = len(check(folder)[0])
            if got != expected: failures.append("%s: %d finding(s), expected %d" % (name, got, expected))
    if failures:
        print("function-length self-test FAILED:")
        for f in failures: print("  " + f)
        return 1
    print("function-length self-test passed: %d cases (%d must fail)" % (len(SELF_TEST), sum(1 for c in SELF_TEST if c[2])))
    return 0


def main(argv):
    if "--self-test" in argv: return self_test()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
    findings, every = check(root)
    if "--list" in argv:
        count = int(argv[argv.index("--list") + 1])
        for length, path, line, name, reason in every[:count]:
            print("%4d %s:%d %s%s" % (length, os.path.relpath(path, root), line, name, "  (reason given)" if reason else ""))
        return 0
    if findings:
        print("function-length: %d function(s) in Sources/ longer than %d lines without a `// Long because: ...` line above:" % (len(findings), LIMIT))
        for length, path, line, name in findings:
            print("  Sources/%s:%d %s: %d lines (split it into named steps, or say why above it)" % (os.path.relpath(path, root), line, name, length))
        return 1
    longest = every[0] if every else (0, "", 0, "", False)
    print("function-length: %d functions in Sources/, none over %d lines without a reason (longest %d, %s:%d)"
          % (len(every), LIMIT, longest[0], os.path.relpath(longest[1], root) if every else "-", longest[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
