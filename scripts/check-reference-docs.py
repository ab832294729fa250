#!/usr/bin/env python3
"""The reference pages' facts that the sources decide (issue #36 item 8), so they cannot go stale.

- docs/limits.md: every constant of Sources/ReplayKitless/Support/InputLimits.swift is named in a table
  row, and every row naming it states its value (5 000 000, 16 MiB, 10⁹, 12 hours, both ends of a range).
- docs/exit-codes.md: each of formats.md §8's exit codes has a row saying what §8 says, no other plain
  code has a row, and each signal's code is 128 plus the signal's number.
- README.md and docs/*.md: every relative link names a file that exists, and a `#fragment` a heading of it.
Run by scripts/check-docs.sh; prints every failure and exits 1 when there is one.
"""
import os
import re
import signal
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
failures = []
SUPERSCRIPT = str.maketrans('0123456789', '⁰¹²³⁴⁵⁶⁷⁸⁹')


def read(path):
    with open(path, encoding='utf-8') as file:
        # Thin and no-break spaces between digit groups read as spaces.
        return file.read().replace('\u202f', ' ').replace('\u2009', ' ').replace('\u00a0', ' ')


def grouped(number):
    """5000000 → '5 000 000'."""
    return f'{number:,}'.replace(',', ' ')


def spellings(value):
    """The ways a page may state `value`: digits grouped by spaces, binary sizes, powers of ten, durations."""
    forms = set()
    if float(value).is_integer():
        number = int(value)
        forms |= {grouped(number), str(number)}
        for shift, unit in ((30, 'GiB'), (20, 'MiB')):
            if number and number % (1 << shift) == 0:
                forms.add(f'{number >> shift} {unit}')
        for seconds, unit in ((86_400, 'days'), (3_600, 'hours')):
            if number and number % seconds == 0:
                forms.add(f'{number // seconds} {unit}')
        exponent = len(str(number)) - 1
        mantissa, rest = divmod(number, 10 ** exponent) if number else (0, 1)
        if exponent >= 4 and rest == 0:
            power = '10' + str(exponent).translate(SUPERSCRIPT)
            forms.add(power if mantissa == 1 else f'{mantissa}·{power}')
    else:
        forms.add(f'{value:.6f}'.rstrip('0'))
    return forms


def limit_constants():
    """(name, [values]) of every `static let` of `enum InputLimits`; a range gives both ends."""
    source = read('Sources/ReplayKitless/Support/InputLimits.swift')
    body = source[source.index('enum InputLimits {'):]
    body = body[:body.index('\n}\n')]
    constants = []
    for name, expression in re.findall(r'static let (\w+) = (.+)', body):
        expression = re.sub(r'(?<=\d)_(?=\d)', '', expression)
        constants.append((name, [eval(end, {}) for end in expression.split('...')]))  # numbers and operators only
    return constants


def check_limits():
    page = read('docs/limits.md')
    rows = [line for line in page.split('\n') if line.startswith('|')]
    for name, values in limit_constants():
        naming = [row for row in rows if f'`{name}`' in row.split('|')[-2]]
        if not naming:
            failures.append(f'docs/limits.md: no row names InputLimits.{name}')
        for row in naming:
            for value in values:
                if not any(form in row for form in spellings(value)):
                    failures.append(f'docs/limits.md: the row naming {name} does not state its value {value} '
                                    f'(as one of {sorted(spellings(value))}): {row[:100]}')


def check_exit_codes():
    contract = read('docs/formats.md')
    section = contract[contract.index('## 8.'):contract.index('## 9.')]
    status = ' '.join(section[section.index('Exit status:'):].split('\n\n')[0].split())
    meanings = {int(code): text.strip() for code, text in re.findall(r'(\d) ([^;.]+?)(?=;|\.|\(|$)', status[len('Exit status:'):])}
    page = read('docs/exit-codes.md')
    table = {}
    for row in page.split('\n'):
        cells = [cell.strip() for cell in row.strip('|').split('|')]
        if row.startswith('|') and len(cells) >= 2 and re.fullmatch(r'[\d /]+', cells[0]):
            table[cells[0]] = cells[1]
    for code, meaning in meanings.items():
        if str(code) not in table:
            failures.append(f'docs/exit-codes.md: no row for exit {code} ({meaning}, formats.md §8)')
        elif not table[str(code)].startswith(meaning):
            failures.append(f'docs/exit-codes.md: exit {code} reads "{table[str(code)][:60]}", formats.md §8 says "{meaning}"')
    for codes, meaning in table.items():
        numbers = [int(code) for code in codes.split('/')]
        if len(numbers) == 1 and numbers[0] < 128:
            if numbers[0] not in meanings:
                failures.append(f'docs/exit-codes.md: exit {numbers[0]} is not in formats.md §8')
            continue
        names = re.findall(r'SIG[A-Z0-9]+', meaning)
        if len(names) != len(numbers):
            failures.append(f'docs/exit-codes.md: row "{codes}" names {len(names)} signals for {len(numbers)} codes')
        for code, name in zip(numbers, names):
            if code != 128 + getattr(signal, name):
                failures.append(f'docs/exit-codes.md: {name} gives exit {128 + getattr(signal, name)}, not {code}')
    if len(meanings) < 5:
        failures.append(f'formats.md §8: read only codes {sorted(meanings)} from its exit status')


def anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r'[`*_]', '', heading.strip().lower())
    return re.sub(r'[^\w\- ]', '', text).replace(' ', '-')


def check_links():
    pages = ['README.md'] + sorted(os.path.join('docs', name) for name in os.listdir('docs') if name.endswith('.md'))
    for page in pages:
        text = read(page)
        text = re.sub(r'```.*?```', '', text, flags=re.S)  # code blocks hold no links
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            if re.match(r'[a-z]+:', target):
                continue
            path, _, fragment = target.partition('#')
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                failures.append(f'{page}: link to {target}: {resolved} does not exist')
            elif fragment and resolved.endswith('.md'):
                headings = re.findall(r'^#+ (.+)$', re.sub(r'```.*?```', '', read(resolved), flags=re.S), re.M)
                if fragment not in {anchor(heading) for heading in headings}:
                    failures.append(f'{page}: link to {target}: {resolved} has no heading #{fragment}')


check_limits()
check_exit_codes()
check_links()
if failures:
    print('\n'.join(failures))
print(f'{len(failures)} stale facts in the reference pages', file=sys.stderr)
sys.exit(1 if failures else 0)
