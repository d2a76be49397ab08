#!/usr/bin/env python3
"""Writes manashiki-sync(1) from the command's own --help texts, so the man page cannot drift
from the program: NAME and SYNOPSIS from the overview's first lines, every upper-case heading
of the overview a section, each command's --help a subsection of COMMAND DETAILS, the rest
verbatim (no fill, so the help's columns survive).

    scripts/manpage.py BINARY OUTPUT.1 [--date YYYY-MM-DD]

The date defaults to the commit date in dist/build-info.env's sense (SOURCE_DATE_EPOCH when
set, else today), so two builds of one commit write the same page.
"""
import datetime
import os
import re
import subprocess
import sys

COMMANDS = ["plan", "sync", "verify", "status", "export", "lock"]
HEADING = re.compile(r"^[A-Z][A-Z0-9 ]*[A-Z0-9]( \(.*\))?$")   # USAGE, OPTIONS (every command)


def roff_text(line):
    """One line of help as roff: backslashes and hyphens escaped, a leading . or ' guarded."""
    line = line.replace("\\", "\\e").replace("-", "\\-")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def help_text(binary, *args):
    result = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit("manpage.py: %s %s --help exited %d: %s" % (binary, " ".join(args), result.returncode, result.stderr))
    return result.stdout.rstrip("\n").split("\n")


def verbatim(lines):
    """A block kept as printed (.nf), blank lines as .sp."""
    out = [".nf"]
    for line in lines:
        out.append(".sp" if not line.strip() else roff_text(line))
    out.append(".fi")
    return out


def sections(lines):
    """(heading, body lines) pairs; the lines before the first heading under None."""
    result, heading, body = [], None, []
    for line in lines:
        if HEADING.match(line):
            result.append((heading, body))
            heading, body = line, []
        else:
            body.append(line)
    result.append((heading, body))
    return [(h, trim(b)) for h, b in result if h is not None or trim(b)]


def trim(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def page(binary, version, date):
    overview = help_text(binary)
    title, _, summary = overview[0].partition(" — ")
    out = ['.TH MANASHIKI\\-SYNC 1 "%s" "manashiki-sync %s" "User Commands"' % (date, version),
           ".SH NAME", "manashiki\\-sync \\- " + roff_text(summary or title)]
    description = [".SH DESCRIPTION",
           "The sections below are the program's own \\fB\\-\\-help\\fR output, and each command's "
           "\\fBmanashiki\\-sync\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR under COMMAND DETAILS."]
    for heading, body in sections(overview[1:]):
        if heading == "USAGE":
            out += [".SH SYNOPSIS"] + verbatim(body) + description
        elif heading is None:
            continue   # the overview has nothing between its title and USAGE
        else:
            out += [".SH " + roff_text(heading)] + verbatim(body)
    out.append(".SH COMMAND DETAILS")
    for command in COMMANDS:
        lines = help_text(binary, command)
        out += [".SS " + roff_text(lines[0])] + verbatim(trim(lines[1:]))
    out += [".SH FILES", ".TP", "/etc/manashiki/manashiki.json",
            "the manifest the packaged systemd service reads (a conffile)",
            ".TP", "/etc/manashiki/api\\-key", "the API key the service reads (create it, mode 0600, owner manashiki)",
            ".TP", "/var/lib/manashiki", "the service's state directory; the packaged manifest's store is /var/lib/manashiki/models",
            ".SH SEE ALSO", "systemctl(1), systemd.timer(5); /usr/share/doc/manashiki\\-sync"]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--date"):
        sys.exit(__doc__)
    binary, output = argv[1], argv[2]
    if len(argv) == 5:
        date = argv[4]
    else:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        stamp = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch else datetime.datetime.now(datetime.timezone.utc)
        date = stamp.strftime("%Y-%m-%d")
    version_line = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.split()
    with open(output, "w", encoding="utf-8") as f:
        f.write(page(binary, version_line[1], date))


if __name__ == "__main__":
    main(sys.argv)
