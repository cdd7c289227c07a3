"""Least-squares fit of the proofs' CPU per ballot in bench.txt:
cpu = f + a * branches + c * ciphertexts proved, on the median of each row.
Prints c/a, the cost of a proved ciphertext in branches (votecode.StatementCost).
Run: python3 fit.py bench.txt"""
import collections
import re
import statistics
import sys

ROW = re.compile(r"Layouts/(\S+)-\d+\s.*?([\d.]+) branches.*?([\d.]+) cpu-ns/unit.*?([\d.]+) statements")


def rows(path):
    cpu, shape = collections.defaultdict(list), {}
    for line in open(path):
        m = ROW.search(line)
        if m:
            cpu[m.group(1)].append(float(m.group(3)) / 1e6)
            shape[m.group(1)] = (float(m.group(2)), float(m.group(4)))
    return [(name, *shape[name], statistics.median(v)) for name, v in cpu.items()]


def solve(a, v):
    m = [row + [x] for row, x in zip(a, v)]
    for i in range(len(m)):
        m[i] = [x / m[i][i] for x in m[i]]
        for j in range(len(m)):
            if j != i:
                m[j] = [x - m[j][i] * y for x, y in zip(m[j], m[i])]
    return [row[-1] for row in m]


def fit(data):
    xs = [(1.0, b, s) for _, b, s, _ in data]
    ys = [c for *_, c in data]
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(3)] for i in range(3)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(3)]
    return solve(ata, aty)


data = rows(sys.argv[1])
for label, sel in (("all rows", data), ("rows of at most 40 branches", [r for r in data if r[1] <= 40])):
    f, a, c = fit(sel)
    print(f"{label}: f = {f:.3f} ms, a = {a:.4f} ms/branch, c = {c:.3f} ms/ciphertext, c/a = {c / a:.2f}")
