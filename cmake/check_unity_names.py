#!/usr/bin/env python3
"""The unity-names test: no two files of one target give a file-local function the same spelling.

A unity batch compiles several .cpp files as one translation unit, so their anonymous namespaces (and `static`
functions) are one scope. Two helpers with one name and one signature fail to compile; with different signatures
they compile as overloads, and a call in one file may silently take the other file's helper through an implicit
conversion (a json value converts to std::string). The same holds for a file-local helper spelled like a free
function a header declares in the same namespace, and for a using-directive at namespace scope (`using namespace
ops;`), which reaches every file after it in the batch. The compiler cannot see either: this check reads the batches
CMake generated and fails naming both files. src/ is held to it as a whole (--whole), not only the files that share
a batch today: a build with other batches (-DROOFLENS_UNITY_BATCH=12 on a small machine) must mean the same program.
A test binary's batches are held to it one by one (--batches): tests share helper names freely across batches, and
`using namespace rooflens;` is how every test file starts.

    check_unity_names.py SRC_DIR [--whole UNITY_DIR]... [--batches UNITY_DIR]...
    (UNITY_DIR: a target's CMakeFiles/<target>.dir/Unity)
"""
import collections
import glob
import os
import re
import sys

NAMESPACE_OPEN = re.compile(r'^namespace\s+([\w:]+)\s*\{')
ANON_OPEN = re.compile(r'^namespace\s*\{')
# A function's definition or declaration starting at column 0. Types, constants and aliases are left to the
# compiler: two of one name in one scope are an error, never a silent choice.
FUNCTION = re.compile(r'^(?:static\s+|inline\s+|constexpr\s+|template\s*<[^>]*>\s*)*'
                      r'(?:[\w:<>,\*&]+\s+)+[\*&]*(\w+)\s*\(')
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'operator', 'sizeof', 'decltype', 'static_assert'}


def code_of(line, in_block_comment):
    """The line without comments and string or character literals (their braces are not the code's)."""
    out, i, n = [], 0, len(line)
    while i < n:
        if in_block_comment:
            j = line.find('*/', i)
            if j < 0:
                return ''.join(out), True
            i, in_block_comment = j + 2, False
        elif line.startswith('//', i):
            break
        elif line.startswith('/*', i):
            in_block_comment, i = True, i + 2
        elif line[i] in '"\'':
            quote, i = line[i], i + 1
            while i < n and line[i] != quote:
                i += 2 if line[i] == '\\' else 1
            i += 1
        else:
            out.append(line[i])
            i += 1
    return ''.join(out), in_block_comment


def names_in(path, usings=None):
    """(namespace, name, file_local) for each function a file defines or declares at namespace scope; the
    using-directives that reach beyond the file go to `usings` (line numbers)."""
    out = []
    stack = []  # (namespace name, '' for an anonymous one; brace depth outside it)
    depth = 0
    in_comment = False
    with open(path, encoding='utf-8', errors='replace') as f:
        for number, raw in enumerate(f, 1):
            line, in_comment = code_of(raw.rstrip('\n'), in_comment)
            at_namespace_scope = depth == (stack[-1][1] + 1 if stack else 0)
            m = NAMESPACE_OPEN.match(line) or ANON_OPEN.match(line)
            if m:
                stack.append((m.group(1) if m.re is NAMESPACE_OPEN else '', depth))
            elif at_namespace_scope and line.startswith('using namespace ') and usings is not None:
                # rooflens' own namespaces and their anonymous ones are shared by every file of a batch; a
                # namespace named after the file is not.
                if all(name == '' or name.startswith('rooflens') for name, _ in stack):
                    usings.append(number)
            elif stack and at_namespace_scope and line[:1] not in (' ', '\t', '#', '}', ''):
                local = stack[-1][0] == '' or line.startswith('static ')
                named = '::'.join(name for name, _ in stack if name)
                m = FUNCTION.match(line)
                if m and m.group(1) not in KEYWORDS:
                    out.append((named, m.group(1), local))
            for c in line:
                if c == '{':
                    depth += 1
                elif c == '}':
                    depth -= 1
                    while stack and depth <= stack[-1][1]:
                        stack.pop()
    return out


def unity_batches(unity_dir, whole):
    """(name, files) per batch of a target, or one for the whole target: the files its batches include."""
    batches = []
    for unity in sorted(glob.glob(os.path.join(unity_dir, 'unity_*.cxx'))):
        with open(unity) as f:
            batches.append((unity, re.findall(r'#include\s+"([^"]+\.cpp)"', f.read())))
    if whole and batches:
        return [(unity_dir, [f for _, files in batches for f in files], True)]
    return [(unity, files, False) for unity, files in batches]


def public_functions(src_dir):
    """(namespace, name) -> header, for the free functions headers declare."""
    out = {}
    for header in glob.glob(os.path.join(src_dir, '**', '*.h'), recursive=True):
        for ns, name, local in names_in(header):
            if not local:
                out.setdefault((ns, name), os.path.relpath(header, src_dir))
    return out


def main():
    src_dir, args = sys.argv[1], sys.argv[2:]
    batches = []
    for mode, unity_dir in zip(args[0::2], args[1::2]):
        batches += unity_batches(unity_dir, mode == '--whole')
    public = public_functions(src_dir)
    problems = []
    if not batches:
        print(f'no unity batches in {" ".join(args[1::2])}: configure with ROOFLENS_UNITY=ON', file=sys.stderr)
        return 1
    for unity, files, whole in batches:
        seen = collections.defaultdict(set)
        for path in files:
            rel = os.path.relpath(path, os.path.dirname(os.path.abspath(src_dir)))
            usings = []
            for ns, name, local in names_in(path, usings):
                if not local:
                    continue
                seen[(ns, name)].add(rel)
                header = public.get((ns, name))
                if header:
                    problems.append(f'{rel}: file-local {name}() in {ns or "::"} is spelled like the function '
                                    f'{header} declares; a call may take either in a unity batch — rename the local one')
            for number in usings if whole else []:
                problems.append(f'{rel}:{number}: a using-directive in a namespace every file of the batch shares '
                                f'reaches the files after it — put it in a namespace of this file, or in the functions')
        for (ns, name), where in sorted(seen.items()):
            if len(where) > 1:
                problems.append(f'{" and ".join(sorted(where))}: both define a file-local {name} in {ns or "::"} and '
                                f'compile together ({os.path.relpath(unity, os.path.dirname(os.path.dirname(unity)))}) — give one a name of its own')
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} name clash(es) in unity batches (docs/building.md, "What a unity batch asks of the code")')
        return 1
    print(f'{sum(len(f) for _, f, _ in batches)} files in {len(batches)} unity batch(es): no file-local name clashes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
