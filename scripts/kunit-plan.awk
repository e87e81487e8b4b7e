# SPDX-License-Identifier: GPL-2.0
#
# The KUnit plan, read from the suites' sources (kunit/*.c), not from a
# typed-in number: one line "SUITE CASES" for each suite that a
# kunit_test_suites() call registers, CASES being the KUNIT_CASE entries
# of its case array.  check.sh compares this with what the kernel ran, so
# a suite dropped from Kbuild, or a case that never reported, is a failure.
#
# Usage: awk -f scripts/kunit-plan.awk kunit/*.c

/struct kunit_case [A-Za-z0-9_]+\[\] *= *\{/ {
	match($0, /kunit_case [A-Za-z0-9_]+/)
	arr = substr($0, RSTART + 11, RLENGTH - 11)
	cases[arr] = 0
	next
}
arr != "" && /KUNIT_CASE/ { cases[arr]++ }
arr != "" && /^};/ { arr = "" }

/struct kunit_suite [A-Za-z0-9_]+ *= *\{/ {
	match($0, /kunit_suite [A-Za-z0-9_]+/)
	suite = substr($0, RSTART + 12, RLENGTH - 12)
	next
}
suite != "" && /\.name *= *"/ {
	match($0, /"[^"]+"/)
	sname[suite] = substr($0, RSTART + 1, RLENGTH - 2)
}
suite != "" && /\.test_cases *= */ {
	match($0, /= *[A-Za-z0-9_]+/)
	sarr[suite] = substr($0, RSTART, RLENGTH)
	sub(/^= */, "", sarr[suite])
}
suite != "" && /^};/ { suite = "" }

/kunit_test_suites?\(/ {
	line = $0
	sub(/.*kunit_test_suites?\(/, "", line)
	sub(/\).*/, "", line)
	n = split(line, regs, /, */)
	for (i = 1; i <= n; i++) {
		s = regs[i]
		sub(/^&/, "", s)
		registered[s] = FILENAME
	}
}

END {
	for (s in registered) {
		if (!(s in sname) || !(sarr[s] in cases)) {
			printf "kunit-plan: cannot read suite %s in %s\n", s, registered[s] > "/dev/stderr"
			bad = 1
			continue
		}
		print sname[s], cases[sarr[s]]
	}
	exit bad
}
