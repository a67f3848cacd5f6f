#!/usr/bin/env bash
# Regio corpus runner: try `instrument` on a real code base, as a new user
# would, and check that every instrumented copy still compiles.
#
#   scripts/corpus.sh DIR [--cflags "..."] [--fflags "..."] [--instrument PATH]
#                         [--regions LIST] [-j N] [--json FILE] [--tsv FILE]
#                         [--keep DIR] [--name NAME] [--preprocess]
#                         [--instrument-args "..."]
#
# DIR is never written to: the instrumented tree goes to a temporary
# directory (or --keep DIR). See README.md, "Trying Regio on a code base".
# Exit status: 0 all good; 1 a file the compiler accepts was refused, or an
# instrumented copy no longer compiles (or instrument itself failed);
# 2 usage error.
#
# The work is done by the Python program below (python3, standard library).
set -euo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export REGIO_CORPUS_REPO="$(dirname "$SCRIPT_DIR")"
exec python3 - "$@" <<'PYTHON'
import argparse, concurrent.futures as cf, json, os, re, shlex, shutil
import subprocess, sys, tempfile, time
from collections import Counter, OrderedDict

C_SUFFIXES = {".c"}
H_SUFFIXES = {".h"}
F_FREE = {".f90", ".f95", ".f03", ".f08", ".f18"}
F_FIXED = {".f", ".for", ".f77", ".ftn"}
VCS_DIRS = {".git", ".hg", ".svn", ".bzr", "_darcs"}
CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"

DIAG_POS = re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")
DIAG_FILE = re.compile(r"^(.*?): (error|warning): (.*)$")
NOT_MEASURED = "not measured: "


def language(path):
    ext = os.path.splitext(path)[1]
    low = ext.lower()
    if ext in C_SUFFIXES:
        return "c"
    if ext in H_SUFFIXES:
        return "h"
    if low in F_FREE:
        return "f-free"
    if low in F_FIXED:
        return "f-fixed"
    return None


def skip_dir(path, name):
    """The directories `instrument` leaves out of a tree (driver.rs skip_dir)."""
    if name in VCS_DIRS or (name == "CVS" and os.path.isfile(os.path.join(path, "Entries"))):
        return True
    try:
        with open(os.path.join(path, "CACHEDIR.TAG"), "rb") as f:
            if f.read(len(CACHEDIR_SIGNATURE)) == CACHEDIR_SIGNATURE:
                return True
    except OSError:
        pass
    if name == "target" and (os.path.isfile(os.path.join(path, ".rustc_info.json"))
                             or os.path.isdir(os.path.join(path, "release/.fingerprint"))
                             or os.path.isdir(os.path.join(path, "debug/.fingerprint"))):
        return True
    if name.startswith("regio-run-") or os.path.isfile(os.path.join(path, "regio.idf.json")):
        return True
    return False


def collect(root):
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if not skip_dir(os.path.join(dirpath, d), d)
                             and not os.path.islink(os.path.join(dirpath, d)))
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            lang = language(fn)
            if lang and os.path.isfile(p) and not os.path.islink(p):
                files.append((os.path.relpath(p, root).replace(os.sep, "/"), lang))
    return files


def absolutize(flags, base):
    """Split a flag string; make relative -I/-iquote/-isystem/-include/-J paths absolute from base."""
    words = shlex.split(flags or "")
    out, i = [], 0
    path_opts = ("-I", "-iquote", "-isystem", "-idirafter", "-include", "-imacros", "-J")
    while i < len(words):
        w = words[i]
        hit = None
        for o in path_opts:
            if w == o and i + 1 < len(words):
                hit = (o, words[i + 1]); i += 1; break
            if w.startswith(o) and len(w) > len(o) and o in ("-I", "-J"):
                hit = (o, w[len(o):]); break
        if hit:
            o, p = hit
            if not os.path.isabs(p):
                p = os.path.normpath(os.path.join(base, p))
            out += [o, p] if o not in ("-I", "-J") else [o + p]
        else:
            out.append(w)
        i += 1
    return out


def copy_includes(flags, root, out):
    """For every -I DIR inside root, the instrumented DIR first, then DIR itself."""
    res = []
    for w in flags:
        if w.startswith("-I") and len(w) > 2:
            d = w[2:]
            rel = os.path.relpath(d, root)
            if not rel.startswith(".."):
                res.append("-I" + os.path.normpath(os.path.join(out, rel)))
        res.append(w)
    return res


def run(cmd, cwd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        text = p.stdout.decode("utf-8", "replace")
        rc = p.returncode
    except subprocess.TimeoutExpired:
        text, rc = "timed out after %ds" % timeout, 124
    except OSError as e:
        text, rc = str(e), 127
    return rc, text, time.time() - t0


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower() or "Error" in line:
            return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else ""


def reason_key(msg):
    """Group messages that differ only in the name of the unit they are about."""
    return re.sub(r"\b(function|subroutine|procedure|program|module|loop|unit|macro) `[^`]*`",
                  r"\1 `...`", msg)


def count_warnings(text):
    return sum(1 for l in text.splitlines() if re.search(r"\bwarning:", l, re.I)
               or l.strip().startswith("Warning:"))


def main():
    ap = argparse.ArgumentParser(prog="scripts/corpus.sh",
                                 description="Run instrument --regions all over a code base "
                                 "and check that the instrumented copies still compile.")
    ap.add_argument("dir", help="directory of C and Fortran sources (never written to)")
    ap.add_argument("--cflags", default="", help="flags for gcc (relative -I from DIR)")
    ap.add_argument("--fflags", default="", help="flags for gfortran (relative -I from DIR)")
    ap.add_argument("--instrument", help="instrument binary (default: target/release/instrument "
                    "of this checkout, else instrument on PATH)")
    ap.add_argument("--regions", default="all", help="--regions for instrument (default all)")
    ap.add_argument("--instrument-args", default="", metavar="ARGS",
                    help="more options for instrument, e.g. \"--preprocess --cflags '-DX'\"")
    ap.add_argument("--preprocess", action="store_true",
                    help="instrument --preprocess with --cflags (and -I DIR) as the compiler flags")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--fc", default="gfortran")
    ap.add_argument("--std", default="gnu17", help="C standard for gcc (default gnu17)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel compile checks (default 2)")
    ap.add_argument("--json", metavar="FILE", help="write all results as JSON ('-' for stdout)")
    ap.add_argument("--tsv", metavar="FILE", help="write one line per file as TSV ('-' for stdout)")
    ap.add_argument("--keep", metavar="DIR", help="instrument into DIR and keep it "
                    "(default: a temporary directory, removed at the end)")
    ap.add_argument("--name", help="name of the code base in the output (default: DIR's name)")
    ap.add_argument("--no-compile", action="store_true", help="only run instrument")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per compile (default 600)")
    # `--cflags -fopenmp`: a value that starts with `-` is still the value.
    argv, args = sys.argv[1:], []
    while argv:
        w = argv.pop(0)
        if w in ("--cflags", "--fflags", "--instrument-args") and argv:
            w = w + "=" + argv.pop(0)
        args.append(w)
    a = ap.parse_args(args)

    root = os.path.realpath(a.dir)
    if not os.path.isdir(root):
        print("corpus: %s: not a directory" % a.dir, file=sys.stderr); return 2
    repo = os.environ.get("REGIO_CORPUS_REPO", ".")
    inst = a.instrument
    if not inst:
        cand = os.path.join(repo, "target", "release", "instrument")
        inst = cand if os.access(cand, os.X_OK) else shutil.which("instrument")
    if not inst or not (os.access(inst, os.X_OK) or shutil.which(inst)):
        print("corpus: no instrument binary (build it: cargo build --release --bin instrument, "
              "or pass --instrument PATH)", file=sys.stderr); return 2
    inst = os.path.realpath(shutil.which(inst) or inst)
    name = a.name or os.path.basename(root)
    jobs = max(1, a.jobs)

    tmp = tempfile.mkdtemp(prefix="regio-corpus.")
    try:
        if a.keep:
            out = os.path.realpath(a.keep)
            if out == root or out.startswith(root + os.sep):
                print("corpus: --keep must be outside DIR", file=sys.stderr); return 2
        else:
            out = os.path.join(tmp, "out")
        return corpus(a, root, inst, name, jobs, tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def corpus(a, root, inst, name, jobs, tmp, out):
    files = collect(root)
    rec = OrderedDict()
    for rel, lang in files:
        rec[rel] = OrderedDict(file=rel, lang=lang, status="accepted", warnings=0,
                               not_measured=0, reasons=[], errors=[], orig_compiles=None,
                               copy_compiles=None, orig_warnings=None, copy_warnings=None,
                               compile_error="")
    size = sum(os.path.getsize(os.path.join(root, r)) for r in rec)

    # 1. instrument the whole tree once.
    pre = []
    if a.preprocess:
        pre = ["--preprocess", "--cc", a.cc, "--cflags",
               " ".join(["-std=" + a.std] + absolutize(a.cflags, root) + ["-I" + root])]
    cmd = [inst, "--regions", a.regions] + pre + shlex.split(a.instrument_args) + ["--out", out, root]
    rc, text, secs = run(cmd, tmp, 24 * 3600)
    global_problems, summary_line = [], ""
    for line in text.splitlines():
        m = DIAG_POS.match(line)
        if m:
            path, ln, col, sev, msg = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)
        else:
            m = DIAG_FILE.match(line)
            if m:
                path, ln, col, sev, msg = m.group(1), 0, 0, m.group(2), m.group(3)
        if line.startswith("instrument: "):
            summary_line = line
            continue
        if not m:
            if line.strip() and not line.startswith("instrument"):
                global_problems.append(line.strip())
            continue
        p = path if os.path.isabs(path) else os.path.join(tmp, path)
        rel = os.path.relpath(os.path.realpath(p), root).replace(os.sep, "/") \
            if os.path.exists(p) else path
        r = rec.get(rel)
        if r is None:
            global_problems.append(line.strip())
            continue
        where = "%d:%d" % (ln, col) if ln else ""
        if sev == "error":
            r["errors"].append({"at": where, "message": msg})
        else:
            r["warnings"] += 1
            if msg.startswith(NOT_MEASURED):
                r["not_measured"] += 1
                msg = msg[len(NOT_MEASURED):]
            r["reasons"].append({"at": where, "message": msg})
    if rc not in (0, 1):
        global_problems.append("instrument exited with status %d" % rc)
    for rel, r in rec.items():
        if r["errors"] or not os.path.isfile(os.path.join(out, rel)):
            r["status"] = "refused"
            if not r["errors"]:
                r["errors"].append({"at": "", "message": "missing from the output tree"})

    # 2. compile checks: the original as is, then the instrumented copy.
    cflags = absolutize(a.cflags, root)
    fflags = absolutize(a.fflags, root)
    extra_c, extra_f = [], []
    if not a.no_compile:
        for flag, dest in (("--cflags", extra_c), ("--fflags", extra_f)):
            frc, ftext, _ = run([inst, "flags", flag], tmp, 60)
            if frc == 0:
                dest += shlex.split(ftext)
            else:
                global_problems.append("instrument flags %s failed: %s" % (flag, first_error(ftext)))
    mods = {"orig": os.path.join(tmp, "mod-orig"), "copy": os.path.join(tmp, "mod-copy")}
    for d in mods.values():
        os.makedirs(d, exist_ok=True)

    def command(rel, side):
        lang = rec[rel]["lang"]
        src_dir = os.path.dirname(os.path.join(root, rel))
        if side == "orig":
            path, cwd, inc = os.path.join(root, rel), src_dir, ["-I" + src_dir, "-I" + root]
        else:
            path = os.path.join(out, rel)
            cwd = os.path.dirname(path)
            inc = ["-I" + cwd, "-I" + out, "-I" + src_dir, "-I" + root]
        if lang == "c":
            flags = cflags if side == "orig" else copy_includes(cflags, root, out) + extra_c
            return [a.cc, "-fsyntax-only", "-std=" + a.std] + flags + inc + [path], cwd
        form = "-ffree-form" if lang == "f-free" else "-ffixed-form"
        flags = fflags if side == "orig" else copy_includes(fflags, root, out) + extra_f
        return [a.fc, "-fsyntax-only", form, "-J", mods[side]] + flags + inc + [path], cwd

    def check(rel, side):
        cmd, cwd = command(rel, side)
        rc, text, _ = run(cmd, cwd, a.timeout)
        return rel, side, rc, text

    def check_all(rels, side):
        """Fortran modules: retry files that miss a module after others compiled."""
        results = {}
        pending = list(rels)
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            while pending:
                retry, progress = [], False
                for rel, _, rc, text in ex.map(lambda r: check(r, side), pending):
                    if rc != 0 and rec[rel]["lang"].startswith("f") and \
                            re.search(r"Cannot open module file|Can't open module file", text):
                        retry.append(rel)
                    results[rel] = (rc, text)
                    progress = progress or rc == 0
                if not retry or not progress or len(retry) == len(pending):
                    break
                pending = retry
        return results

    t_compile = time.time()
    if not a.no_compile:
        cands = [rel for rel, r in rec.items() if r["lang"] != "h"]
        orig = check_all(cands, "orig")
        for rel, (crc, text) in orig.items():
            rec[rel]["orig_compiles"] = crc == 0
            rec[rel]["orig_warnings"] = count_warnings(text) if crc == 0 else None
        copies = [rel for rel in cands if rec[rel]["orig_compiles"] and rec[rel]["status"] != "refused"]
        copy = check_all(copies, "copy")
        for rel, (crc, text) in copy.items():
            r = rec[rel]
            r["copy_compiles"] = crc == 0
            if crc == 0:
                r["copy_warnings"] = count_warnings(text)
            else:
                r["compile_error"] = first_error(text).replace(out + "/", "")
    t_compile = time.time() - t_compile

    # 3. figures.
    vals = list(rec.values())
    s = OrderedDict()
    s["files"] = len(vals)
    s["c"] = sum(1 for r in vals if r["lang"] == "c")
    s["h"] = sum(1 for r in vals if r["lang"] == "h")
    s["fortran"] = sum(1 for r in vals if r["lang"].startswith("f"))
    s["accepted"] = sum(1 for r in vals if r["status"] == "accepted")
    s["refused"] = sum(1 for r in vals if r["status"] == "refused")
    s["with_warnings"] = sum(1 for r in vals if r["warnings"])
    s["not_measured_units"] = sum(r["not_measured"] for r in vals)
    s["other_warnings"] = sum(r["warnings"] - r["not_measured"] for r in vals)
    s["checked"] = sum(1 for r in vals if r["orig_compiles"] is not None)
    s["originals_compile"] = sum(1 for r in vals if r["orig_compiles"])
    s["copies_compile"] = sum(1 for r in vals if r["copy_compiles"])
    s["broken_copies"] = sum(1 for r in vals if r["copy_compiles"] is False)
    bad_refusals = [r for r in vals if r["status"] == "refused"
                    and (r["orig_compiles"] or r["lang"] == "h")]
    s["refused_but_compiles"] = len(bad_refusals)
    bad_ids = {id(r) for r in bad_refusals}
    s["new_warning_copies"] = sum(1 for r in vals if r["copy_warnings"] is not None
                                  and r["orig_warnings"] is not None
                                  and r["copy_warnings"] > r["orig_warnings"])
    # The IDF: how many procedures it lists, and how many of them are left as written.
    s["idf_regions"] = s["idf_functions"] = s["idf_functions_not_measured"] = None
    try:
        with open(os.path.join(out, "regio.idf.json")) as f:
            regions = json.load(f).get("regions", [])
        procs = [x for x in regions if x.get("kind") in ("function", "program")]
        s["idf_regions"] = len(regions)
        s["idf_functions"] = len(procs)
        s["idf_functions_not_measured"] = sum(
            1 for x in procs if "not_measured" in (x.get("aux") or {}))
    except (OSError, ValueError, AttributeError):
        pass
    s["instrument_status"] = rc
    s["instrument_seconds"] = round(secs, 2)
    s["mb"] = round(size / 1e6, 2)
    s["mb_per_s"] = round(size / 1e6 / secs, 2) if secs > 0 else None
    s["compile_seconds"] = round(t_compile, 1)
    failed = bool(bad_refusals) or s["broken_copies"] > 0 or \
        (rc not in (0, 1)) or (s["files"] and not os.path.isdir(out))

    def grouped(kind):
        g = OrderedDict()
        for r in vals:
            for d in r[kind]:
                key = reason_key(d["message"])
                e = g.setdefault(key, {"reason": key, "count": 0, "files": set(), "example": ""})
                e["count"] += 1
                e["files"].add(r["file"])
                if not e["example"]:
                    e["example"] = r["file"] + (":" + d["at"] if d["at"] else "")
        res = sorted(g.values(), key=lambda e: -e["count"])
        for e in res:
            e["files"] = len(e["files"])
        return res
    warn_groups, err_groups = grouped("reasons"), grouped("errors")
    broken = Counter(re.sub(r"\bregio__([A-Za-z_]*?)\d+", r"regio__\1N",
                            re.sub(r"^.*?:\d+:\d+: ", "", r["compile_error"]))
                     for r in vals if r["copy_compiles"] is False)

    # 4. output.
    o = sys.stdout if a.json != "-" and a.tsv != "-" else sys.stderr
    print("corpus %s: %s (%s files, %.2f MB)" % (name, root, s["files"], s["mb"]), file=o)
    print("  " + " ".join(shlex.quote(w) for w in cmd), file=o)
    if summary_line:
        print("  " + summary_line, file=o)
    print(file=o)
    cols = [("files", "files"), ("accepted", "accepted"), ("refused", "refused"),
            ("with_warnings", "with-warnings"), ("not_measured_units", "not-measured units"),
            ("other_warnings", "other warnings"),
            ("originals_compile", "originals compile"), ("copies_compile", "copies compile"),
            ("broken_copies", "broken copies"), ("refused_but_compiles", "refused, compiler accepts"),
            ("new_warning_copies", "copies with new warnings")]
    w = max(len(l) for _, l in cols)
    for k, label in cols:
        print("  %-*s %8s" % (w, label, s[k]), file=o)
    print("  %-*s %8s  (C %d, headers %d, Fortran %d; instrument %.1fs = %s MB/s, compile checks %.0fs)"
          % (w, "", "", s["c"], s["h"], s["fortran"], s["instrument_seconds"],
             s["mb_per_s"], s["compile_seconds"]), file=o)
    if s["idf_functions"] is not None:
        print("  %-*s %8s  (IDF: %d regions; %d procedures, %d of them left as written)"
              % (w, "", "", s["idf_regions"], s["idf_functions"], s["idf_functions_not_measured"]),
              file=o)
    if global_problems:
        print("\ninstrument said (not tied to a file):", file=o)
        for g in global_problems[:20]:
            print("  " + (g if len(g) <= 400 else g[:400] + " ... (%d characters)" % len(g)), file=o)
        if len(global_problems) > 20:
            print("  ... %d more" % (len(global_problems) - 20), file=o)
    if err_groups:
        print("\nrefusals by message (count, files, first example):", file=o)
        for e in err_groups:
            print("  %5d %5d  %s   [%s]" % (e["count"], e["files"], e["reason"], e["example"]), file=o)
    if warn_groups:
        print("\nwarnings (not measured, and others), by reason (count, files, first example):", file=o)
        for e in warn_groups:
            print("  %5d %5d  %s   [%s]" % (e["count"], e["files"], e["reason"], e["example"]), file=o)
    if broken:
        print("\nbroken copies by first compiler error:", file=o)
        for msg, n in broken.most_common():
            print("  %5d  %s" % (n, msg), file=o)
    probs = []
    for r in vals:
        p = []
        if r["status"] == "refused":
            e = r["errors"][0]
            tag = "REFUSED" + (" (compiler accepts it)" if id(r) in bad_ids else "")
            p.append("%s: %s%s" % (tag, e["at"] + ": " if e["at"] else "", e["message"])
                     + (" (+%d more)" % (len(r["errors"]) - 1) if len(r["errors"]) > 1 else ""))
        if r["copy_compiles"] is False:
            p.append("BROKEN COPY: " + r["compile_error"])
        elif r["copy_warnings"] is not None and r["orig_warnings"] is not None \
                and r["copy_warnings"] > r["orig_warnings"]:
            p.append("new compiler warnings: %d -> %d" % (r["orig_warnings"], r["copy_warnings"]))
        if r["not_measured"] or r["warnings"]:
            c = Counter(reason_key(d["message"]) for d in r["reasons"])
            p.append("%d not measured: " % r["not_measured"] + "; ".join(
                ("%s (x%d)" % (m, n) if n > 1 else m) for m, n in c.most_common()))
        if p:
            probs.append((r["file"], p))
    if probs:
        print("\nper file:", file=o)
        for f, p in probs:
            print("  %s" % f, file=o)
            for x in p:
                print("      " + x, file=o)
    print("\ncorpus %s: %s" % (name, "FAIL" if failed else "ok"), file=o)

    if a.json:
        doc = OrderedDict(name=name, root=root, command=cmd, instrument_output_summary=summary_line,
                          cflags=a.cflags, fflags=a.fflags, summary=s, failed=bool(failed),
                          global_problems=global_problems, refusal_reasons=err_groups,
                          not_measured_reasons=warn_groups,
                          broken_copy_errors=[{"error": m, "count": n} for m, n in broken.most_common()],
                          files=vals)
        txt = json.dumps(doc, indent=1)
        if a.json == "-":
            print(txt)
        else:
            with open(a.json, "w") as f:
                f.write(txt + "\n")
    if a.tsv:
        hdr = ["file", "lang", "status", "warnings", "not_measured", "orig_compiles",
               "copy_compiles", "problem"]
        def yn(v):
            return "" if v is None else ("yes" if v else "no")
        lines = ["\t".join(hdr)]
        for r in vals:
            prob = r["errors"][0]["message"] if r["errors"] else (
                r["compile_error"] or (r["reasons"][0]["message"] if r["reasons"] else ""))
            lines.append("\t".join([r["file"], r["lang"], r["status"], str(r["warnings"]),
                                    str(r["not_measured"]), yn(r["orig_compiles"]),
                                    yn(r["copy_compiles"]), prob.replace("\t", " ")]))
        txt = "\n".join(lines) + "\n"
        if a.tsv == "-":
            sys.stdout.write(txt)
        else:
            with open(a.tsv, "w") as f:
                f.write(txt)
    return 1 if failed else 0


sys.exit(main())
PYTHON
