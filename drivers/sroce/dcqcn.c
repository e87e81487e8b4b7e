// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN reaction point: the per-QP rate state machine of Zhu et al.
 * (SIGCOMM 2015) with lazy timers caught up in closed form.  See dcqcn.h
 * for the algorithm, the choices made and the derivation.
 */
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/time64.h>

#include <sroce/dcqcn.h>

#define MBPS		1000000ULL	/* bit/s in a Mb/s */
#define TIME_MAX	((u64)S64_MAX)
/* a knob in 1/1024 to α's 2^-30 */
#define KNOB_SHIFT	(SROCE_DCQCN_ALPHA_SHIFT - 10)

void sroce_dcqcn_rp_params_default(struct sroce_dcqcn_rp_params *prm)
{
	*prm = (struct sroce_dcqcn_rp_params) {
		.rp_clamp_tgt_rate = 0,
		.rp_clamp_tgt_rate_ati = 1,
		.rp_time_reset = 300,
		.rp_byte_reset = 32767,
		.rp_threshold = 5,
		.rp_ai_rate = 5,
		.rp_hai_rate = 50,
		.rp_max_rate = 0,
		.rp_min_rate = 1,
		.rp_min_dec_fac = 50,
		.rp_rate_to_set_on_first_cnp = 0,
		.rp_dce_tcp_g = 1020,
		.rp_dce_tcp_rtt = 55,
		.rp_rate_reduce_monitor_period = 4,
		.rp_initial_alpha_value = 1023,
	};
}

static bool sroce_dcqcn_out(u32 v, u32 lo, u32 hi)
{
	return v < lo || v > hi;
}

static int sroce_dcqcn_bad(const char **why, const char *field)
{
	if (why)
		*why = field;
	return -EINVAL;
}

/**
 * sroce_dcqcn_rp_params_check - validate reaction point parameters
 * @prm: the parameters
 * @why: if not NULL, set to the name of the first bad field
 *
 * The ranges: flags 0 or 1; periods 1 µs to SROCE_DCQCN_MAX_US (a zero
 * period would make every call do infinitely many steps, and beyond a
 * second recovery takes hours); rp_byte_reset 1 to 1 GiB; rp_threshold 1
 * to 31 (mlx5's range); rates in Mb/s 1 to SROCE_DCQCN_MAX_MBPS, which
 * keeps every product in 64 bits, rp_max_rate and
 * rp_rate_to_set_on_first_cnp also 0 (off); rp_min_rate not above
 * rp_max_rate when that is set; rp_min_dec_fac 1 to 100; rp_dce_tcp_g and
 * rp_initial_alpha_value 0 to 1023.
 *
 * Returns 0, or -EINVAL.
 */
int sroce_dcqcn_rp_params_check(const struct sroce_dcqcn_rp_params *prm,
				const char **why)
{
	const u32 rmax = SROCE_DCQCN_MAX_MBPS, tmax = SROCE_DCQCN_MAX_US;

	if (sroce_dcqcn_out(prm->rp_clamp_tgt_rate, 0, 1))
		return sroce_dcqcn_bad(why, "rp_clamp_tgt_rate");
	if (sroce_dcqcn_out(prm->rp_clamp_tgt_rate_ati, 0, 1))
		return sroce_dcqcn_bad(why, "rp_clamp_tgt_rate_ati");
	if (sroce_dcqcn_out(prm->rp_time_reset, 1, tmax))
		return sroce_dcqcn_bad(why, "rp_time_reset");
	if (sroce_dcqcn_out(prm->rp_byte_reset, 1, SROCE_DCQCN_MAX_BYTE_RESET))
		return sroce_dcqcn_bad(why, "rp_byte_reset");
	if (sroce_dcqcn_out(prm->rp_threshold, 1, SROCE_DCQCN_MAX_THRESHOLD))
		return sroce_dcqcn_bad(why, "rp_threshold");
	if (sroce_dcqcn_out(prm->rp_ai_rate, 1, rmax))
		return sroce_dcqcn_bad(why, "rp_ai_rate");
	if (sroce_dcqcn_out(prm->rp_hai_rate, 1, rmax))
		return sroce_dcqcn_bad(why, "rp_hai_rate");
	if (sroce_dcqcn_out(prm->rp_max_rate, 0, rmax))
		return sroce_dcqcn_bad(why, "rp_max_rate");
	if (sroce_dcqcn_out(prm->rp_min_rate, 1, rmax) ||
	    (prm->rp_max_rate && prm->rp_min_rate > prm->rp_max_rate))
		return sroce_dcqcn_bad(why, "rp_min_rate");
	if (sroce_dcqcn_out(prm->rp_min_dec_fac, 1, 100))
		return sroce_dcqcn_bad(why, "rp_min_dec_fac");
	if (sroce_dcqcn_out(prm->rp_rate_to_set_on_first_cnp, 0, rmax))
		return sroce_dcqcn_bad(why, "rp_rate_to_set_on_first_cnp");
	if (sroce_dcqcn_out(prm->rp_dce_tcp_g, 0, 1023))
		return sroce_dcqcn_bad(why, "rp_dce_tcp_g");
	if (sroce_dcqcn_out(prm->rp_dce_tcp_rtt, 1, tmax))
		return sroce_dcqcn_bad(why, "rp_dce_tcp_rtt");
	if (sroce_dcqcn_out(prm->rp_rate_reduce_monitor_period, 1, tmax))
		return sroce_dcqcn_bad(why, "rp_rate_reduce_monitor_period");
	if (sroce_dcqcn_out(prm->rp_initial_alpha_value, 0, 1023))
		return sroce_dcqcn_bad(why, "rp_initial_alpha_value");
	return 0;
}

/* the maximum rate in bit/s: rp_max_rate, but never above the line */
static u64 sroce_dcqcn_top(const struct sroce_dcqcn_rp *rp,
			   const struct sroce_dcqcn_rp_params *prm)
{
	u64 max_bps = (u64)prm->rp_max_rate * MBPS;

	return max_bps && max_bps < rp->line ? max_bps : rp->line;
}

/* the minimum rate in bit/s, never above the maximum (a slow line) */
static u64 sroce_dcqcn_floor(const struct sroce_dcqcn_rp_params *prm, u64 top)
{
	return min((u64)prm->rp_min_rate * MBPS, top);
}

static bool sroce_dcqcn_hyper(const struct sroce_dcqcn_rp *rp,
			      const struct sroce_dcqcn_rp_params *prm)
{
	return min(rp->t, rp->bc) > prm->rp_threshold;
}

/* base (g/1024)^n, g = rp_dce_tcp_g (1 - the paper's g); 2^-30 units */
static u32 sroce_dcqcn_decay(u32 base, u32 g, u64 n)
{
	u64 f = (u64)g << KNOB_SHIFT, r = SROCE_DCQCN_ALPHA_ONE;

	/* f, r <= 2^30: every product fits; at most 64 rounds */
	while (n && r) {
		if (n & 1)
			r = (r * f) >> SROCE_DCQCN_ALPHA_SHIFT;
		f = (f * f) >> SROCE_DCQCN_ALPHA_SHIFT;
		n >>= 1;
	}
	return ((u64)base * r) >> SROCE_DCQCN_ALPHA_SHIFT;
}

/* S(u) = a u + b u (u + 1)/2: what u steps add to RT; U64_MAX on overflow */
static u64 sroce_dcqcn_sum(u64 a, u64 b, u64 u)
{
	u64 s, tri;

	if (check_mul_overflow(a, u, &s))
		return U64_MAX;
	if (!b)
		return s;
	if (u > U32_MAX)
		return U64_MAX;
	tri = u * (u + 1) / 2;
	if (check_mul_overflow(b, tri, &tri) || check_add_overflow(s, tri, &s))
		return U64_MAX;
	return s;
}

/* the largest u <= k with S(u) < room: the steps that leave RT below max */
static u64 sroce_dcqcn_free_steps(u64 a, u64 b, u64 k, u64 room)
{
	u64 lo = 0, hi = k;

	if (!room)
		return 0;
	if (!b)
		return a ? min(k, div64_u64(room - 1, a)) : k;
	/* S grows with u: a binary search, at most 64 rounds */
	while (lo < hi) {
		u64 mid = hi - (hi - lo) / 2;

		if (sroce_dcqcn_sum(a, b, mid) < room)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * k increase steps whose RT increments are a + b j, j = 1..k: RT <- min(RT
 * + inc, top), RC <- ceil((RT + RC)/2), in closed form (see dcqcn.h).
 * Rounding RC up is what lets it reach top exactly: the distance left is
 * halved rounding down.  Returns how many steps were taken: fewer than k
 * if RC and RT reached top, after which there is nothing left to count.
 */
static u64 sroce_dcqcn_steps(struct sroce_dcqcn_rp *rp, u64 top, u64 a,
			     u64 b, u64 k)
{
	u64 u = sroce_dcqcn_free_steps(a, b, k, top - rp->rt);
	u64 dist, used;

	if (u) {
		/* e = d - trend before the first step, trend_j = a + b (j - 1) */
		s64 e = (s64)(rp->rt - rp->rc) - ((s64)a - (s64)b);
		s64 d = (s64)(a + b * (u - 1)) + (e >> min_t(u64, u, 63));

		rp->rt += sroce_dcqcn_sum(a, b, u);
		rp->rc = rp->rt - d;
	}
	if (u == k)
		return k;
	/*
	 * Step u + 1 takes RT to top; each step from it on halves top - RC,
	 * which is gone after as many steps as it has bits (one at least).
	 */
	dist = top - rp->rc;
	used = min(k - u, max_t(u64, fls64(dist), 1));
	rp->rt = top;
	rp->rc = top - (dist >> min_t(u64, used, 63));
	return u + used;
}

/*
 * n stages of one counter (the timer's T or the byte counter's BC), each
 * followed by an increase.  While the other counter stands still the
 * kind of increase changes at most three times as this one grows, so
 * this is at most four closed-form runs.  Returns how many stages were
 * counted: fewer than n if the QP reached the maximum rate on the way.
 */
static u64 sroce_dcqcn_stages(struct sroce_dcqcn_rp *rp,
			      const struct sroce_dcqcn_rp_params *prm,
			      u64 n, bool timer)
{
	u64 ai = (u64)prm->rp_ai_rate * MBPS, hai = (u64)prm->rp_hai_rate * MBPS;
	u64 top = sroce_dcqcn_top(rp, prm);
	u32 *m = timer ? &rp->t : &rp->bc;
	u32 o = timer ? rp->bc : rp->t;
	u32 f = prm->rp_threshold;
	u64 taken = 0;

	if (!n || !rp->limited)
		return 0;
	if (timer)
		rp->inc_timer = true;
	else
		rp->inc_byte = true;

	while (n && rp->limited) {
		/* the moving counter's value at the next step */
		u32 next = min_t(u32, *m + 1, SROCE_DCQCN_STAGE_MAX);
		u64 len, a = 0, b = 0;

		if (max(next, o) < f) {
			/* fast recovery: RT stands, until this counter hits F */
			len = f - next;
		} else if (min(next, o) <= f) {
			/* additive: for good if the other is at most F */
			len = o <= f ? n : f - next + 1;
			a = ai;
		} else if (next <= o && *m < SROCE_DCQCN_STAGE_MAX) {
			/* hyper, i = this counter - F, one more each step */
			len = o - next + 1;
			a = hai * (next - 1 - f);
			b = hai;
		} else {
			/* hyper, i = the other counter - F, for good */
			len = n;
			a = hai * (min(next, o) - f);
		}
		len = sroce_dcqcn_steps(rp, top, a, b, min(len, n));
		*m = min_t(u64, *m + len, SROCE_DCQCN_STAGE_MAX);
		n -= len;
		taken += len;
		if (rp->rc == top && rp->rt == top)
			rp->limited = false;
	}
	return taken;
}

/* the α periods elapsed since the last CNP, as a power */
static void sroce_dcqcn_alpha_catch_up(struct sroce_dcqcn_rp *rp,
				       const struct sroce_dcqcn_rp_params *prm)
{
	u64 period = (u64)prm->rp_dce_tcp_rtt * NSEC_PER_USEC;
	u64 n = div64_u64(rp->now_ns - rp->alpha_ns, period);

	if (n == rp->alpha_periods)
		return;
	rp->alpha = sroce_dcqcn_decay(rp->alpha_base, prm->rp_dce_tcp_g, n);
	rp->alpha_periods = n;
}

/* the rate-increase timer expiries up to now */
static void sroce_dcqcn_timer_catch_up(struct sroce_dcqcn_rp *rp,
				       const struct sroce_dcqcn_rp_params *prm)
{
	u64 period = (u64)prm->rp_time_reset * NSEC_PER_USEC;
	u64 now = rp->now_ns;

	while (rp->limited && rp->timer_ns <= now) {
		u64 p, n;

		if (!sroce_dcqcn_hyper(rp, prm) && rp->bc > prm->rp_threshold) {
			/*
			 * BC is past F, T is not yet: hyper stage is at most
			 * F + 1 expiries away.  One at a time, for the period
			 * after each depends on the stage it leaves.
			 */
			sroce_dcqcn_stages(rp, prm, 1, true);
			rp->timer_ns += sroce_dcqcn_hyper(rp, prm) ?
					period / 2 : period;
			continue;
		}
		/* the stage, and with it the period, no longer changes */
		p = sroce_dcqcn_hyper(rp, prm) ? period / 2 : period;
		n = div64_u64(now - rp->timer_ns, p) + 1;
		rp->timer_ns += sroce_dcqcn_stages(rp, prm, n, true) * p;
	}
}

/**
 * sroce_dcqcn_rp_init - start a QP unlimited
 * @rp: the state
 * @prm: parameters, checked by sroce_dcqcn_rp_params_check()
 * @line_mbps: the link's speed; 0 (not known) or above
 *	SROCE_DCQCN_MAX_MBPS counts as SROCE_DCQCN_MAX_MBPS
 * @now_ns: the time now
 */
void sroce_dcqcn_rp_init(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_rp_params *prm,
			 u32 line_mbps, u64 now_ns)
{
	now_ns = min(now_ns, TIME_MAX);
	if (!line_mbps || line_mbps > SROCE_DCQCN_MAX_MBPS)
		line_mbps = SROCE_DCQCN_MAX_MBPS;
	*rp = (struct sroce_dcqcn_rp) {
		.line = (u64)line_mbps * MBPS,
		.now_ns = now_ns,
		.timer_ns = now_ns,
		.alpha_ns = now_ns,
		.alpha = prm->rp_initial_alpha_value << KNOB_SHIFT,
	};
	rp->alpha_base = rp->alpha;
	rp->rc = sroce_dcqcn_top(rp, prm);
	rp->rt = rp->rc;
}

/**
 * sroce_dcqcn_rp_advance - catch up with the time
 * @rp: the state
 * @prm: parameters, checked by sroce_dcqcn_rp_params_check()
 * @now_ns: the time now; an earlier time than the last call's counts as
 *	that one (no time passes)
 *
 * Applies every α period and rate-increase period elapsed since the last
 * call, in bounded time however long ago that was.
 */
void sroce_dcqcn_rp_advance(struct sroce_dcqcn_rp *rp,
			    const struct sroce_dcqcn_rp_params *prm,
			    u64 now_ns)
{
	u64 top = sroce_dcqcn_top(rp, prm);

	rp->now_ns = max(rp->now_ns, min(now_ns, TIME_MAX));
	sroce_dcqcn_alpha_catch_up(rp, prm);
	if (!rp->limited) {
		/* follows a new rp_max_rate */
		rp->rc = top;
		rp->rt = top;
		return;
	}
	rp->rc = min(rp->rc, top);
	rp->rt = min(rp->rt, top);
	if (rp->rc == top && rp->rt == top) {
		rp->limited = false;
		return;
	}
	sroce_dcqcn_timer_catch_up(rp, prm);
}

/**
 * sroce_dcqcn_rp_sent - count bytes put on the wire
 * @rp: the state
 * @prm: parameters, checked by sroce_dcqcn_rp_params_check()
 * @bytes: how many
 * @now_ns: the time now
 *
 * Catches up with the time first, then counts @bytes, as many byte stages
 * as they make at once.  An unlimited QP does not count.
 */
void sroce_dcqcn_rp_sent(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_rp_params *prm,
			 u64 bytes, u64 now_ns)
{
	u64 full = prm->rp_byte_reset, half = max(full / 2, 1ULL);

	sroce_dcqcn_rp_advance(rp, prm, now_ns);
	if (!rp->limited)
		return;
	if (check_add_overflow(rp->bytes, bytes, &rp->bytes))
		rp->bytes = U64_MAX;

	while (rp->limited) {
		u64 thr, n;

		if (!sroce_dcqcn_hyper(rp, prm) && rp->t > prm->rp_threshold) {
			/* T is past F, BC not yet: the same, byte stages */
			if (rp->bytes < full)
				break;
			rp->bytes -= full;
			sroce_dcqcn_stages(rp, prm, 1, false);
			continue;
		}
		/* the stage, and with it the threshold, no longer changes */
		thr = sroce_dcqcn_hyper(rp, prm) ? half : full;
		n = div64_u64(rp->bytes, thr);
		if (!n)
			break;
		rp->bytes -= n * thr;
		sroce_dcqcn_stages(rp, prm, n, false);
	}
	if (!rp->limited)
		rp->bytes = 0;
}

/**
 * sroce_dcqcn_rp_cnp - react to a congestion notification packet
 * @rp: the state
 * @prm: parameters, checked by sroce_dcqcn_rp_params_check()
 * @now_ns: the time now
 *
 * Catches up with the time first.
 *
 * Returns true if the CNP was handled (rp_cnp_handled), false if it came
 * less than rp_rate_reduce_monitor_period after the last handled one and
 * was ignored (rp_cnp_ignored).
 */
bool sroce_dcqcn_rp_cnp(struct sroce_dcqcn_rp *rp,
			const struct sroce_dcqcn_rp_params *prm, u64 now_ns)
{
	u64 monitor = (u64)prm->rp_rate_reduce_monitor_period * NSEC_PER_USEC;
	u64 top, floor, first_bps;
	u32 g = prm->rp_dce_tcp_g;
	bool first;

	sroce_dcqcn_rp_advance(rp, prm, now_ns);
	now_ns = rp->now_ns;
	if (rp->cnp_seen && now_ns - rp->cnp_ns < monitor)
		return false;
	rp->cnp_seen = true;
	rp->cnp_ns = now_ns;

	top = sroce_dcqcn_top(rp, prm);
	floor = sroce_dcqcn_floor(prm, top);
	first = !rp->limited;

	/* α first, then the cut with the new α, as the authors' code does */
	if (first)
		rp->alpha = prm->rp_initial_alpha_value << KNOB_SHIFT;
	rp->alpha = ((u64)rp->alpha * g +
		     ((u64)(1024 - g) << SROCE_DCQCN_ALPHA_SHIFT)) >> 10;
	rp->alpha_base = rp->alpha;
	rp->alpha_ns = now_ns;
	rp->alpha_periods = 0;

	first_bps = (u64)prm->rp_rate_to_set_on_first_cnp * MBPS;
	if (first && first_bps) {
		rp->rc = clamp(first_bps, floor, top);
		rp->rt = rp->rc;
	} else {
		u64 cut, bound;

		if (prm->rp_clamp_tgt_rate || rp->inc_byte ||
		    (prm->rp_clamp_tgt_rate_ati && rp->inc_timer))
			rp->rt = rp->rc;
		/* RC (1 - α/2); α <= 2^30, RC < 2^44: 128-bit product */
		cut = rp->rc - mul_u64_u32_shr(rp->rc, rp->alpha,
					       SROCE_DCQCN_ALPHA_SHIFT + 1);
		bound = div_u64(rp->rc * prm->rp_min_dec_fac, 100);
		rp->rc = max3(cut, bound, floor);
	}

	rp->t = 0;
	rp->bc = 0;
	rp->bytes = 0;
	rp->inc_timer = false;
	rp->inc_byte = false;
	rp->timer_ns = now_ns + (u64)prm->rp_time_reset * NSEC_PER_USEC;
	rp->limited = rp->rc < top || rp->rt < top;
	return true;
}

/* RC in Mb/s, rounded to the nearest */
u32 sroce_dcqcn_rp_rate_mbps(const struct sroce_dcqcn_rp *rp)
{
	return div_u64(rp->rc + MBPS / 2, MBPS);
}

/* α in 1/1024, rounded to the nearest (1024 is 1) */
u32 sroce_dcqcn_rp_alpha(const struct sroce_dcqcn_rp *rp)
{
	return (rp->alpha + BIT(KNOB_SHIFT - 1)) >> KNOB_SHIFT;
}

/* Is the QP held below the maximum rate?  Only then is there pacing to do. */
bool sroce_dcqcn_rp_limited(const struct sroce_dcqcn_rp *rp)
{
	return rp->limited;
}

/**
 * sroce_dcqcn_rp_tx_ns - time to put bytes on the wire at RC
 * @rp: the state
 * @bytes: how many
 *
 * For a pacer, which is not written yet.  Rounded down: under a
 * nanosecond per call.
 *
 * Returns the time in ns; U64_MAX for a state without a rate (zeroed, not
 * initialised).
 */
u64 sroce_dcqcn_rp_tx_ns(const struct sroce_dcqcn_rp *rp, u32 bytes)
{
	/*
	 * bytes * 8 < 2^35 and NSEC_PER_SEC < 2^30, so the quotient fits
	 * 64 bits for any rate of 2 bit/s or more, and the division (which
	 * traps on x86 if it does not) is safe.
	 */
	if (rp->rc < 2)
		return U64_MAX;
	return mul_u64_u64_div_u64((u64)bytes * BITS_PER_BYTE, NSEC_PER_SEC,
				   rp->rc);
}
