# SPDX-License-Identifier: GPL-2.0
#
# Read a guest test's console output (scripts/guest.sh; in pair mode each
# line carries "[a] " or "[b] ") and print, for each guest that spoke:
#   ROLE PLANS PLAN PASSED FAILED DUPLICATES
# PLANS is how many "1..N" plan lines it printed and PLAN the last N;
# DUPLICATES counts check names it reported more than once (each is
# also printed as "dup ROLE NAME").  A single guest is role "a".
#
# Usage: awk -f scripts/tap-count.awk OUTPUT

function role_of(line) {
	if (match(line, /^\[[ab]\] /))
		return substr(line, 2, 1)
	return "a"
}

function body_of(line) {
	sub(/^\[[ab]\] /, "", line)
	return line
}

{
	r = role_of($0)
	b = body_of($0)
	if (b ~ /^1\.\.[0-9]+$/) {
		seen[r] = 1
		plans[r]++
		plan[r] = substr(b, 4) + 0
		next
	}
	if (b ~ /^ok - / || b ~ /^not ok - /) {
		seen[r] = 1
		if (b ~ /^ok - /) {
			passed[r]++
			name = substr(b, 6)
		} else {
			failed[r]++
			# Names may hold ": " themselves; the reason follows
			# the last one, so take the whole line.
			name = substr(b, 10)
		}
		if (names[r, name]++ == 1) {
			dups[r]++
			print "dup", r, name
		}
	}
}

END {
	for (r in seen)
		printf "%s %d %d %d %d %d\n", r, plans[r], plan[r], passed[r], failed[r], dups[r]
}
