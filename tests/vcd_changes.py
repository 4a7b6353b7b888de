"""The value changes of a VCD the model wrote (common/vcd_writer.h), for the test scripts.

changes(path) -> {full name: [(time in ps, value), ...]}: each variable's full name is its
scopes and name joined with dots (ssd.nand.ch0.bus_phase); an identifier declared under
several names gives each the same changes; vectors and scalars (0 or 1) alike, in file
order.
"""


def changes(path):
    names, scope, out, t = {}, [], {}, 0
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "$scope":
            scope.append(w[2])
        elif w[0] == "$upscope":
            scope.pop()
        elif w[0] == "$var":
            names.setdefault(w[3], []).append(".".join(scope + [w[4]]))
        elif w[0].startswith("#"):
            t = int(w[0][1:])
        elif w[0].startswith("b") and len(w) == 2:
            for name in names.get(w[1], []):
                out.setdefault(name, []).append((t, int(w[0][1:], 2)))
        elif w[0][0] in "01" and len(w) == 1:
            for name in names.get(w[0][1:], []):
                out.setdefault(name, []).append((t, int(w[0][0])))
    return out
