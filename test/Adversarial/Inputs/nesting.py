"""Writes a program nested N levels deep (test/Adversarial/nesting.test):
`regions` (scf.if in scf.if) or `attributes` (an array in an array).

    nesting.py N regions|attributes
"""
import sys

depth, kind = int(sys.argv[1]), sys.argv[2]
if kind == "attributes":
    print("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {a = "
          + "[" * depth + "]" * depth + "} {\n  return %x : tensor<4xf32>\n}")
    sys.exit()
lines = ['// brackets in comments and strings do not count: ((((((((((',
         'func.func @f(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> attributes {note = "[[[[[["} {']
for i in range(depth):
    lines.append(f"  %r{i} = scf.if %c -> tensor<4xf32> {{")
lines.append("  scf.yield %x : tensor<4xf32>")
for i in reversed(range(depth)):
    lines.append("  } else {\n  scf.yield %x : tensor<4xf32>\n  }")
    lines.append(f"  scf.yield %r{i} : tensor<4xf32>" if i > 0 else "  return %r0 : tensor<4xf32>")
lines.append("}")
print("\n".join(lines))
