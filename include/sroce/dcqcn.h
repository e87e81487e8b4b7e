/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN reaction point (RP): the per-QP rate state machine of Zhu et al.,
 * "Congestion Control for Large-Scale RDMA Deployments" (SIGCOMM 2015),
 * as pure policy code: no kernel objects, no allocation, no floating
 * point, no timers.  The transport feeds it three kinds of event (time
 * passing, bytes sent, and CNPs: the congestion notification packets of
 * IBTA Annex A17) and reads the current rate back: rp.c does, for the
 * QP's requester.
 *
 * Locking: none inside.  The caller serialises all calls for one QP (the
 * QP's own lock, say); calls for different QPs are independent.  The
 * functions never sleep, take bounded time whatever the state and the
 * time gap, and may be called from any context, softirq included.
 *
 * The algorithm, per QP.  RC is the current rate, RT the target rate, α
 * the estimate of how congested the path is, T and BC the timer and byte
 * stage counts, F the stage threshold:
 *
 *  - a CNP: α <- (1 - g) α + g, then RC <- RC (1 - α/2).  The paper lists
 *    the cut before the α update; the authors' own simulator updates α
 *    first and cuts with the new value, and so do we.  The cut is floored
 *    at the minimum rate and never takes RC below RC rp_min_dec_fac/100.
 *    Before the cut RT <- RC, but only when the rate was raised since the
 *    last CNP (see rp_clamp_tgt_rate), so that a burst of CNPs with no
 *    recovery between them keeps the older, higher target.  T, BC and the
 *    byte count start again, and so do the α and rate-increase timers.
 *  - every rp_dce_tcp_rtt without a CNP: α <- (1 - g) α.
 *  - every rp_time_reset: T += 1, then an increase; every rp_byte_reset
 *    bytes sent: BC += 1, then an increase.  In hyper stage (below) the
 *    period and the byte threshold are halved, as in the authors' code,
 *    the period from the next expiry on.
 *  - an increase: fast recovery while max(T, BC) < F (RC <- (RT + RC)/2);
 *    hyper increase while min(T, BC) > F (RT += R_HAI i, then the same
 *    average); additive increase otherwise (RT += R_AI, the same average).
 *    RT and RC never exceed the maximum rate.
 *
 * The hyper increment i: the paper's i = min(T, BC) - F, so that the
 * first hyper step adds one R_HAI and each stage one more.  The authors'
 * simulator adds one to it (two R_HAI on the first hyper step); we keep
 * the paper's equation, the published definition of the algorithm.
 *
 * Once RC and RT both reach the maximum rate the QP is unlimited: the
 * timers stop mattering, bytes are no longer counted, and the next CNP
 * is the first of a new congestion episode.  It starts from
 * rp_initial_alpha_value (mlx5 documents the knob as the α of a flow's
 * first CNP) rather than from an α that has been decaying since, which
 * would make the first cut of a new episode almost nothing.
 *
 * Lazy timers.  There is no kernel timer per QP.  The state records the
 * time it last caught up to (the caller's clock: ktime_get_ns(), say) and
 * every call first applies all α periods and rate-increase periods that
 * elapsed since, in bounded time whatever the gap:
 *
 *  - α is anchored at the last handled CNP: after n periods it is
 *    α_cnp (g'/1024)^n with g' = rp_dce_tcp_g (= 1 - g), the power taken
 *    by squaring (at most 64 rounds).  Being a function of n alone, it is
 *    the same however the gap is cut into calls.
 *  - RC and RT, kept as integers in bit/s, with RC <- ceil((RT + RC)/2):
 *    with d = RT - RC a step gives d' = floor((d + inc)/2), inc the step's
 *    increment of RT.  In a run of steps whose increments are
 *    inc_j = a + b j (constant: fast recovery, additive, hyper once the
 *    moving counter has passed the other; linear: hyper while the moving
 *    counter is the smaller one), d follows the trend a + b (j - 1), the
 *    error e = d - trend is halved, rounding down, each step, so after j
 *    steps e_j = e_0 >> j (an arithmetic shift: 0 or -1 for good after 63),
 *    and RT has grown by a j + b j (j + 1)/2.  Once RT reaches the
 *    maximum only RC moves, and its distance to it is shifted right once
 *    a step.  So k steps cost at most four runs (fast recovery, additive,
 *    hyper growing, hyper flat), each in closed form, plus a binary
 *    search for the step that reaches the maximum; the result is exactly
 *    that of k single steps.  The stage counters stay exact, saturating
 *    at SROCE_DCQCN_STAGE_MAX.
 *  - bytes: a send of any size is counted in whole byte stages at once,
 *    with the same closed forms.
 *
 * Times beyond S64_MAX ns (292 years of ktime) are taken as S64_MAX.
 */
#ifndef SROCE_DCQCN_H
#define SROCE_DCQCN_H

#include <linux/bits.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* α in units of 2^-30: fine enough that the decay of many periods keeps
 * its precision, coarse enough that products of two fit in 64 bits.
 */
#define SROCE_DCQCN_ALPHA_SHIFT		30
#define SROCE_DCQCN_ALPHA_ONE		BIT(SROCE_DCQCN_ALPHA_SHIFT)

/* T and BC saturate here; the hyper increment i with them */
#define SROCE_DCQCN_STAGE_MAX		65535

/* upper bounds of the parameters, see sroce_dcqcn_rp_params_check() */
#define SROCE_DCQCN_MAX_MBPS		10000000	/* 10 Tb/s */
#define SROCE_DCQCN_MAX_US		1000000		/* 1 s */
#define SROCE_DCQCN_MAX_BYTE_RESET	SZ_1G
#define SROCE_DCQCN_MAX_THRESHOLD	31

/**
 * struct sroce_dcqcn_rp_params - reaction point parameters
 *
 * Named and scaled like the mlx5 debugfs knobs (cc_params), so that
 * settings carry over.  Defaults from sroce_dcqcn_rp_params_default(),
 * valid ranges in sroce_dcqcn_rp_params_check().  The four that pace
 * recovery (@rp_time_reset, @rp_byte_reset, @rp_ai_rate, @rp_hai_rate)
 * default to the values mlx5 documents, as one set; the paper's set is
 * 55 µs, 10 MB and 40 Mb/s.
 *
 * @rp_clamp_tgt_rate: 1: every handled CNP sets RT <- RC before the cut.
 *	0 (default): only if the rate was raised since the last CNP, by the
 *	byte counter or, with @rp_clamp_tgt_rate_ati, by the timer.
 * @rp_clamp_tgt_rate_ati: 1 (default): a timer-driven increase also
 *	makes the next CNP set RT <- RC ("after time increase"); 0: only a
 *	byte-counter increase does.  Default 0/1 is the behaviour of the
 *	authors' simulator: any increase since the last CNP.
 * @rp_time_reset: rate-increase timer period, µs (default 300)
 * @rp_byte_reset: bytes per byte stage, B (default 32767)
 * @rp_threshold: F, the stage count that ends fast recovery and starts
 *	hyper increase (default 5, the paper's).  With F = 1, the value
 *	reported for mlx5, the strict comparisons above leave no fast
 *	recovery at all (max(T, BC) < 1 never holds once a stage counted).
 * @rp_ai_rate: R_AI, Mb/s (default 5)
 * @rp_hai_rate: R_HAI, Mb/s (default 50)
 * @rp_max_rate: highest rate, Mb/s; 0 (default) for the line rate.  A
 *	value above the line rate means the line rate.
 * @rp_min_rate: lowest rate a cut leaves, Mb/s (default 1)
 * @rp_min_dec_fac: a cut leaves at least this percentage of RC (default
 *	50; 100 means CNPs never cut)
 * @rp_rate_to_set_on_first_cnp: Mb/s; if not 0, the first CNP of an
 *	unlimited QP sets RC and RT to this (kept between the minimum and
 *	maximum rate) instead of cutting.  Default 0.
 * @rp_dce_tcp_g: g' = 1 - g, in 1/1024, as mlx5 defines it: α <- (g'/1024)
 *	α + (1 - g'/1024) on a CNP, α <- (g'/1024) α every period without
 *	one.  Default 1020, the paper's g = 1/256 (mlx5 documents 1019,
 *	g = 5/1024).
 * @rp_dce_tcp_rtt: the α period K, µs.  Default 55, the paper's.  mlx5
 *	documents 1 µs, but its firmware updates α once per period whether
 *	or not a CNP came; here α rises on each CNP and decays only in
 *	periods without one, and the paper asks for K above the interval at
 *	which the notification point sends CNPs (50 µs in the paper), or α
 *	would decay between the CNPs of one congestion.  g goes with it.
 * @rp_rate_reduce_monitor_period: µs; a CNP less than this after the
 *	last handled one is ignored altogether (no cut, no α update, no
 *	timer restart), for the caller to count (mlx5's rp_cnp_ignored, as
 *	against rp_cnp_handled).  Default 4, mlx5's.
 * @rp_initial_alpha_value: α at the first CNP of an unlimited QP, in
 *	1/1024 (default 1023, mlx5's; the paper starts at 1)
 *
 * Changing parameters of a live QP is allowed (the caller serialises it
 * against the QP's calls); the next call applies them to what is still
 * to be caught up, α's decay since the last CNP included.
 */
struct sroce_dcqcn_rp_params {
	u32 rp_clamp_tgt_rate;
	u32 rp_clamp_tgt_rate_ati;
	u32 rp_time_reset;
	u32 rp_byte_reset;
	u32 rp_threshold;
	u32 rp_ai_rate;
	u32 rp_hai_rate;
	u32 rp_max_rate;
	u32 rp_min_rate;
	u32 rp_min_dec_fac;
	u32 rp_rate_to_set_on_first_cnp;
	u32 rp_dce_tcp_g;
	u32 rp_dce_tcp_rtt;
	u32 rp_rate_reduce_monitor_period;
	u32 rp_initial_alpha_value;
};

/**
 * struct sroce_dcqcn_rp - reaction point state of one QP
 * @rc: current rate RC, bit/s
 * @rt: target rate RT, bit/s
 * @line: line rate, bit/s, as given to sroce_dcqcn_rp_init()
 * @now_ns: the time the state has been caught up to
 * @timer_ns: when the rate-increase timer expires next
 * @cnp_ns: when the last CNP was handled (if @cnp_seen)
 * @alpha_ns: when @alpha_base was set: the last handled CNP, or init
 * @alpha_periods: α periods since @alpha_ns applied to @alpha
 * @bytes: bytes sent towards the next byte stage
 * @alpha: α now, in 2^-30
 * @alpha_base: α at @alpha_ns
 * @t: T, the timer stage count since the last CNP
 * @bc: BC, the byte stage count since the last CNP
 * @limited: RC or RT is below the maximum rate
 * @cnp_seen: a CNP has been handled
 * @inc_timer: the timer raised the rate since the last CNP
 * @inc_byte: the byte counter raised the rate since the last CNP
 */
struct sroce_dcqcn_rp {
	u64 rc;
	u64 rt;
	u64 line;
	u64 now_ns;
	u64 timer_ns;
	u64 cnp_ns;
	u64 alpha_ns;
	u64 alpha_periods;
	u64 bytes;
	u32 alpha;
	u32 alpha_base;
	u32 t;
	u32 bc;
	bool limited;
	bool cnp_seen;
	bool inc_timer;
	bool inc_byte;
};

void sroce_dcqcn_rp_params_default(struct sroce_dcqcn_rp_params *prm);
int sroce_dcqcn_rp_params_check(const struct sroce_dcqcn_rp_params *prm,
				const char **why);

void sroce_dcqcn_rp_init(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_rp_params *prm,
			 u32 line_mbps, u64 now_ns);
void sroce_dcqcn_rp_advance(struct sroce_dcqcn_rp *rp,
			    const struct sroce_dcqcn_rp_params *prm,
			    u64 now_ns);
void sroce_dcqcn_rp_sent(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_rp_params *prm,
			 u64 bytes, u64 now_ns);
bool sroce_dcqcn_rp_cnp(struct sroce_dcqcn_rp *rp,
			const struct sroce_dcqcn_rp_params *prm, u64 now_ns);

u32 sroce_dcqcn_rp_rate_mbps(const struct sroce_dcqcn_rp *rp);
u32 sroce_dcqcn_rp_alpha(const struct sroce_dcqcn_rp *rp);
bool sroce_dcqcn_rp_limited(const struct sroce_dcqcn_rp *rp);
u64 sroce_dcqcn_rp_tx_ns(const struct sroce_dcqcn_rp *rp, u32 bytes);

#endif /* SROCE_DCQCN_H */
