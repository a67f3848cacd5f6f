#!/usr/bin/env python3
"""Check instrumenter/src/mpi_routines.rs against MPICH 4's headers: every
row's positions must hold an argument of that role in the C prototype
(mpi_proto.h / mpio.h parameter names) and the same argument name in the
Fortran 2008 binding (gfortran's mpi_f08.mod), with `ierror` last.

Run from the workspace root: python3 notes/check-mpi-routines.py
(needs libmpich-dev: /usr/include/x86_64-linux-gnu/mpich/)."""
import gzip
import re
import sys

INC = "/usr/include/x86_64-linux-gnu/mpich/"
# Role -> C parameter names that hold it (MPICH spelling).
NAMES = {
    "Dest": {"dest"}, "Source": {"source", "dest"}, "Tag": {"tag"},
    "SendTag": {"sendtag"}, "RecvTag": {"recvtag"}, "Root": {"root"},
    "Target": {"target_rank", "rank"},
    "Comm": {"comm", "comm_old", "local_comm", "peer_comm", "comm1", "comm2", "intercomm"},
    "Count": {"count", "sendcount", "recvcount", "sendcounts", "recvcounts", "origin_count",
              "target_count", "result_count", "incount"},
    "Datatype": {"datatype", "sendtype", "recvtype", "origin_datatype", "target_datatype",
                 "result_datatype", "sendtypes", "recvtypes", "etype", "filetype"},
    "Status": {"status", "array_of_statuses"},
    "Request": {"request", "array_of_requests"},
    "Flag": {"flag"},
    "NewComm": {"newcomm", "comm_cart", "comm_graph", "comm_dist_graph", "newintracomm", "newintercomm"},
}


def c_prototypes():
    out = {}
    for h in ("mpi_proto.h", "mpio.h"):
        src = open(INC + h).read()
        src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
        src = re.sub(r"^\s*#.*$", "", src, flags=re.M)
        for stmt in src.split(";"):
            m = re.search(r"\b(MPI_\w+)\s*\(", stmt)
            if not m or "typedef" in stmt[: m.start()].split():
                continue
            i, depth, j = m.end(), 1, m.end()
            while depth and j < len(stmt):
                depth += {"(": 1, ")": -1}.get(stmt[j], 0)
                j += 1
            params = stmt[i : j - 1].strip()
            names = []
            if params not in ("", "void"):
                for p in params.split(","):
                    p = re.sub(r"\[.*?\]", "", p)
                    m2 = re.search(r"(\w+)\s*$", p)
                    names.append(m2.group(1) if m2 else p.strip())
            out.setdefault(m.group(1), names)
    return out


def f08_arguments():
    t = gzip.open(INC + "mpi_f08.mod", "rt").read()
    starts = [(m.start(), m.group(1), m.group(2)) for m in re.finditer(
        r"(?:(?<=\s)|^)(\d+)\s+'(\w+)'\s+'(\w*)'\s+'(\w*)'\s+\d+\s+\(\(", t, flags=re.M)]
    names, procs = {}, {}
    for k, (s, i, n) in enumerate(starts):
        names.setdefault(i, n)
    for k, (s, i, n) in enumerate(starts):
        body = t[s : starts[k + 1][0] if k + 1 < len(starts) else len(t)]
        if "PROCEDURE" in body and "_f08" in n:
            m = re.search(r"UNKNOWN\s+\(\)\)\s+\d+\s+0\s+\(([\d\s]*)\)", body)
            if m:
                procs[n] = [names.get(x, "?") for x in m.group(1).split()]
    return procs


def main():
    rows = re.findall(r'r\("(MPI_\w+)", &\[([^\]]*)\]\)',
                      open("instrumenter/src/mpi_routines.rs").read())
    c, f = c_prototypes(), f08_arguments()
    bad = 0
    for name, args in rows:
        roles = [(r, int(i)) for r, i in re.findall(r"\((\w+), (\d+)\)", args)]
        cp = c.get(name)
        fp = f.get(name.lower() + "_f08ts") or f.get(name.lower() + "_f08")
        if cp is None or fp is None:
            print("not in MPICH:", name); bad += 1; continue
        for role, at in roles:
            if at >= len(cp) or cp[at] not in NAMES[role]:
                print(f"{name}: C argument {at} is {cp[at:at+1]}, not a {role}"); bad += 1
            if at >= len(fp) - 1 or fp[at] not in NAMES[role] | {cp[at]}:
                print(f"{name}: Fortran argument {at} is {fp[at:at+1]}, C has {cp[at]}"); bad += 1
        if roles and (fp[-1] != "ierror" or len(fp) != len(cp) + 1):
            print(f"{name}: Fortran {fp} is not C {cp} + ierror"); bad += 1
    print(f"{len(rows)} rows checked, {bad} problems")
    sys.exit(1 if bad else 0)


main()
