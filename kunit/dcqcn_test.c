// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the DCQCN reaction point (drivers/sroce/dcqcn.c).
 *
 * Most cases replay an event script (time, event, argument) and compare
 * the state after each event with what an independent floating-point
 * model of the equations of Zhu et al. (SIGCOMM 2015) gives:
 * scripts/tests/dcqcn_ref.py, whose output the ev_* tables below are.
 * To change a script, change it there, run it and paste the table.
 *
 * Tolerances: RC and RT within 1 ppm of the model (the integer code rounds
 * each average up to the bit/s, the model not at all; they differ by a
 * few parts in 10^9); α within 2^-20 (the model's exact power against a
 * power by squaring in 2^-30 steps: a few 2^-30 apart); T, BC, whether a
 * CNP was handled and whether the QP is limited exactly.  The lazy
 * catch-up is compared with itself too, exactly: one call over a long
 * gap must leave the same state as many calls over pieces of it.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include <sroce/dcqcn.h>

#define US	1000ULL
#define MS	(1000 * US)
#define SEC	(1000 * MS)
#define MBPS	1000000ULL

enum { EV_ADV, EV_SENT, EV_CNP };

/* an event and the model's state after it */
struct dcqcn_ev {
	u64 t;
	u8 kind;
	u64 arg;
	u64 rc;
	u64 rt;
	u32 alpha;
	u32 st;
	u32 bc;
	u8 handled;
	u8 limited;
};

/* Tables printed by scripts/tests/dcqcn_ref.py (all scenarios). */

/* cut: One CNP from line rate, then a second after three timer steps. Line
 * 100000 Mb/s, default parameters.
 */
static const struct dcqcn_ev ev_cut[] = {
	{ 10000, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 1000000, EV_CNP, 0, 50096833554, 93756079674, 1000015332, 0, 0, 1, 1 },
};

/* alpha: Alpha after j periods of 55 us without a CNP (and 1 ns before).
 * Line 100000 Mb/s, default parameters.
 */
static const struct dcqcn_ev ev_alpha[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 54999, EV_ADV, 0, 50048637390, 100000000000, 1072697344, 0, 0, 0, 1 },
	{ 55000, EV_ADV, 0, 50048637390, 100000000000, 1068507120, 0, 0, 0, 1 },
	{ 109999, EV_ADV, 0, 50048637390, 100000000000, 1068507120, 0, 0, 0, 1 },
	{ 110000, EV_ADV, 0, 50048637390, 100000000000, 1064333264, 0, 0, 0, 1 },
	{ 164999, EV_ADV, 0, 50048637390, 100000000000, 1064333264, 0, 0, 0, 1 },
	{ 165000, EV_ADV, 0, 50048637390, 100000000000, 1060175712, 0, 0, 0, 1 },
	{ 274999, EV_ADV, 0, 50048637390, 100000000000, 1056034401, 0, 0, 0, 1 },
	{ 275000, EV_ADV, 0, 50048637390, 100000000000, 1051909266, 0, 0, 0, 1 },
	{ 439999, EV_ADV, 0, 75024318695, 100000000000, 1043707276, 1, 0, 0, 1 },
	{ 440000, EV_ADV, 0, 75024318695, 100000000000, 1039630295, 1, 0, 0, 1 },
	{ 714999, EV_ADV, 0, 87512159348, 100000000000, 1023481005, 2, 0, 0, 1 },
	{ 715000, EV_ADV, 0, 87512159348, 100000000000, 1019483032, 2, 0, 0, 1 },
	{ 1154999, EV_ADV, 0, 93756079674, 100000000000, 991931102, 3, 0, 0, 1 },
	{ 1155000, EV_ADV, 0, 93756079674, 100000000000, 988056371, 3, 0, 0, 1 },
	{ 1869999, EV_ADV, 0, 99219509959, 100000000000, 942723437, 6, 0, 0, 1 },
	{ 1870000, EV_ADV, 0, 99219509959, 100000000000, 939040924, 6, 0, 0, 1 },
	{ 3024999, EV_ADV, 0, 99951219372, 100000000000, 868338030, 10, 0, 0, 1 },
	{ 3025000, EV_ADV, 0, 99951219372, 100000000000, 864946085, 10, 0, 0, 1 },
	{ 4894999, EV_ADV, 0, 99999237803, 100000000000, 760144462, 16, 0, 0, 1 },
	{ 4895000, EV_ADV, 0, 99999237803, 100000000000, 757175148, 16, 0, 0, 1 },
	{ 7919999, EV_ADV, 0, 99999999256, 100000000000, 612925892, 26, 0, 0, 1 },
	{ 7920000, EV_ADV, 0, 99999999256, 100000000000, 610531650, 26, 0, 0, 1 },
	{ 12814999, EV_ADV, 0, 100000000000, 100000000000, 432640442, 36, 0, 0, 0 },
	{ 12815000, EV_ADV, 0, 100000000000, 100000000000, 430950440, 36, 0, 0, 0 },
	{ 20734999, EV_ADV, 0, 100000000000, 100000000000, 246239710, 36, 0, 0, 0 },
	{ 20735000, EV_ADV, 0, 100000000000, 100000000000, 245277836, 36, 0, 0, 0 },
	{ 33549999, EV_ADV, 0, 100000000000, 100000000000, 98925491, 36, 0, 0, 0 },
	{ 33550000, EV_ADV, 0, 100000000000, 100000000000, 98539063, 36, 0, 0, 0 },
	{ 54284999, EV_ADV, 0, 100000000000, 100000000000, 22619829, 36, 0, 0, 0 },
	{ 54285000, EV_ADV, 0, 100000000000, 100000000000, 22531470, 36, 0, 0, 0 },
	{ 109999999, EV_ADV, 0, 100000000000, 100000000000, 429148, 36, 0, 0, 0 },
	{ 110000000, EV_ADV, 0, 100000000000, 100000000000, 427472, 36, 0, 0, 0 },
};

/* recovery: Fast recovery (T = 1..4), then additive, timer only. Line
 * 100000 Mb/s, default parameters.
 */
static const struct dcqcn_ev ev_recovery[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 300000, EV_ADV, 0, 75024318695, 100000000000, 1051909266, 1, 0, 0, 1 },
	{ 600000, EV_ADV, 0, 87512159348, 100000000000, 1031524046, 2, 0, 0, 1 },
	{ 900000, EV_ADV, 0, 93756079674, 100000000000, 1007582573, 3, 0, 0, 1 },
	{ 1200000, EV_ADV, 0, 96878039837, 100000000000, 988056371, 4, 0, 0, 1 },
	{ 1500000, EV_ADV, 0, 98439019918, 100000000000, 965123774, 5, 0, 0, 1 },
	{ 1800000, EV_ADV, 0, 99219509959, 100000000000, 946420392, 6, 0, 0, 1 },
	{ 2100000, EV_ADV, 0, 99609754980, 100000000000, 924454158, 7, 0, 0, 1 },
	{ 2400000, EV_ADV, 0, 99804877490, 100000000000, 906538923, 8, 0, 0, 1 },
	{ 2700000, EV_ADV, 0, 99902438745, 100000000000, 885498330, 9, 0, 0, 1 },
	{ 3000000, EV_ADV, 0, 99951219372, 100000000000, 868338030, 10, 0, 0, 1 },
};

/* hyper: Timer and byte counter both drive: additive, then hyper increase.
 * Line 100000 Mb/s, rp_ai_rate 40, rp_byte_reset 1000000,
 * rp_clamp_tgt_rate 1, rp_hai_rate 200, rp_time_reset 55.
 */
static const struct dcqcn_ev ev_hyper[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 10000, EV_CNP, 0, 25048565959, 50048637390, 1072701424, 0, 0, 1, 1 },
	{ 20000, EV_SENT, 250000, 25048565959, 50048637390, 1072701424, 0, 0, 0, 1 },
	{ 40000, EV_SENT, 250000, 25048565959, 50048637390, 1072701424, 0, 0, 0, 1 },
	{ 60000, EV_SENT, 250000, 25048565959, 50048637390, 1072701424, 0, 0, 0, 1 },
	{ 80000, EV_SENT, 250000, 43798619532, 50048637390, 1068511184, 1, 1, 0, 1 },
	{ 100000, EV_SENT, 250000, 43798619532, 50048637390, 1068511184, 1, 1, 0, 1 },
	{ 120000, EV_SENT, 250000, 46923628461, 50048637390, 1064337312, 2, 1, 0, 1 },
	{ 140000, EV_SENT, 250000, 46923628461, 50048637390, 1064337312, 2, 1, 0, 1 },
	{ 160000, EV_SENT, 250000, 48486132926, 50048637390, 1064337312, 2, 2, 0, 1 },
	{ 180000, EV_SENT, 250000, 49267385158, 50048637390, 1060179745, 3, 2, 0, 1 },
	{ 200000, EV_SENT, 250000, 49267385158, 50048637390, 1060179745, 3, 2, 0, 1 },
	{ 220000, EV_SENT, 250000, 49267385158, 50048637390, 1060179745, 3, 2, 0, 1 },
	{ 240000, EV_SENT, 250000, 49853324332, 50048637390, 1056038417, 4, 3, 0, 1 },
	{ 260000, EV_SENT, 250000, 49853324332, 50048637390, 1056038417, 4, 3, 0, 1 },
	{ 280000, EV_SENT, 250000, 49853324332, 50048637390, 1056038417, 4, 3, 0, 1 },
	{ 300000, EV_SENT, 250000, 49970980861, 50088637390, 1051913267, 5, 3, 0, 1 },
	{ 320000, EV_SENT, 250000, 50049809126, 50128637390, 1051913267, 5, 4, 0, 1 },
	{ 340000, EV_SENT, 250000, 50109223258, 50168637390, 1047804231, 6, 4, 0, 1 },
	{ 360000, EV_SENT, 250000, 50109223258, 50168637390, 1047804231, 6, 4, 0, 1 },
	{ 380000, EV_SENT, 250000, 50109223258, 50168637390, 1047804231, 6, 4, 0, 1 },
	{ 400000, EV_SENT, 250000, 50203783857, 50248637390, 1043711246, 7, 5, 0, 1 },
	{ 420000, EV_SENT, 250000, 50203783857, 50248637390, 1043711246, 7, 5, 0, 1 },
	{ 440000, EV_SENT, 250000, 50203783857, 50248637390, 1043711246, 7, 5, 0, 1 },
	{ 460000, EV_SENT, 250000, 50246210624, 50288637390, 1039634249, 8, 5, 0, 1 },
	{ 480000, EV_SENT, 250000, 50367424007, 50488637390, 1039634249, 8, 6, 0, 1 },
	{ 500000, EV_SENT, 250000, 50367424007, 50488637390, 1039634249, 8, 6, 0, 1 },
	{ 520000, EV_SENT, 250000, 50808334044, 51088637390, 1035573178, 9, 7, 0, 1 },
	{ 540000, EV_SENT, 250000, 51148485717, 51488637390, 1035573178, 10, 7, 0, 1 },
	{ 560000, EV_SENT, 250000, 52003599472, 52488637390, 1031527970, 11, 8, 0, 1 },
	{ 580000, EV_SENT, 250000, 52003599472, 52488637390, 1031527970, 11, 8, 0, 1 },
	{ 600000, EV_SENT, 250000, 53217377911, 53888637390, 1031527970, 12, 9, 0, 1 },
	{ 620000, EV_SENT, 250000, 53953007650, 54688637390, 1027498564, 13, 9, 0, 1 },
	{ 640000, EV_SENT, 250000, 54820822520, 55688637390, 1027498564, 13, 10, 0, 1 },
	{ 660000, EV_SENT, 250000, 55754729955, 56688637390, 1027498564, 14, 10, 0, 1 },
	{ 680000, EV_SENT, 250000, 57805160531, 58888637390, 1023484897, 15, 11, 0, 1 },
	{ 700000, EV_SENT, 250000, 58946898961, 60088637390, 1023484897, 16, 11, 0, 1 },
	{ 720000, EV_SENT, 250000, 60217768175, 61488637390, 1023484897, 16, 12, 0, 1 },
	{ 740000, EV_SENT, 250000, 61553202783, 62888637390, 1019486910, 17, 12, 0, 1 },
	{ 760000, EV_SENT, 250000, 64404778738, 65888637390, 1019486910, 18, 13, 0, 1 },
	{ 780000, EV_SENT, 250000, 65946708064, 67488637390, 1015504539, 19, 13, 0, 1 },
	{ 800000, EV_SENT, 250000, 67617672727, 69288637390, 1015504539, 19, 14, 0, 1 },
	{ 820000, EV_SENT, 250000, 69353155059, 71088637390, 1015504539, 20, 14, 0, 1 },
	{ 840000, EV_SENT, 250000, 73004766807, 74888637390, 1011537724, 21, 15, 0, 1 },
	{ 860000, EV_SENT, 250000, 73004766807, 74888637390, 1011537724, 21, 15, 0, 1 },
	{ 880000, EV_SENT, 250000, 77017669744, 79088637390, 1011537724, 22, 16, 0, 1 },
	{ 900000, EV_SENT, 250000, 79153153567, 81288637390, 1007586405, 23, 16, 0, 1 },
	{ 920000, EV_SENT, 250000, 83604766434, 85888637390, 1007586405, 24, 17, 0, 1 },
	{ 940000, EV_SENT, 250000, 83604766434, 85888637390, 1007586405, 24, 17, 0, 1 },
	{ 960000, EV_SENT, 250000, 88417669651, 90888637390, 1003650521, 25, 18, 0, 1 },
	{ 980000, EV_SENT, 250000, 90953153521, 93488637390, 1003650521, 26, 18, 0, 1 },
	{ 1000000, EV_SENT, 250000, 96204766423, 98888637390, 999730011, 27, 19, 0, 1 },
	{ 1020000, EV_SENT, 250000, 96204766423, 98888637390, 999730011, 27, 19, 0, 1 },
	{ 1040000, EV_SENT, 250000, 99051191606, 100000000000, 999730011, 28, 20, 0, 1 },
	{ 1060000, EV_SENT, 250000, 99525595803, 100000000000, 995824815, 29, 20, 0, 1 },
	{ 1080000, EV_SENT, 250000, 99762797901, 100000000000, 995824815, 29, 21, 0, 1 },
	{ 1100000, EV_SENT, 250000, 99881398951, 100000000000, 995824815, 30, 21, 0, 1 },
	{ 1120000, EV_SENT, 250000, 99970349738, 100000000000, 991934875, 31, 22, 0, 1 },
	{ 1140000, EV_SENT, 250000, 99985174869, 100000000000, 991934875, 32, 22, 0, 1 },
	{ 1160000, EV_SENT, 250000, 99992587434, 100000000000, 991934875, 32, 23, 0, 1 },
	{ 1180000, EV_SENT, 250000, 99996293717, 100000000000, 988060129, 33, 23, 0, 1 },
	{ 1200000, EV_SENT, 250000, 99999073429, 100000000000, 988060129, 34, 24, 0, 1 },
	{ 1220000, EV_SENT, 250000, 99999536715, 100000000000, 984200519, 35, 24, 0, 1 },
	{ 1240000, EV_SENT, 250000, 99999768357, 100000000000, 984200519, 35, 25, 0, 1 },
	{ 1260000, EV_SENT, 250000, 99999884179, 100000000000, 984200519, 36, 25, 0, 1 },
	{ 1280000, EV_SENT, 250000, 99999971045, 100000000000, 980355986, 37, 26, 0, 1 },
	{ 1300000, EV_SENT, 250000, 99999971045, 100000000000, 980355986, 37, 26, 0, 1 },
	{ 1320000, EV_SENT, 250000, 99999992761, 100000000000, 980355986, 38, 27, 0, 1 },
	{ 1340000, EV_SENT, 250000, 99999996381, 100000000000, 976526470, 39, 27, 0, 1 },
	{ 1360000, EV_SENT, 250000, 99999999095, 100000000000, 976526470, 40, 28, 0, 1 },
	{ 1380000, EV_SENT, 250000, 99999999095, 100000000000, 976526470, 40, 28, 0, 1 },
	{ 1400000, EV_SENT, 250000, 99999999774, 100000000000, 972711914, 41, 29, 0, 1 },
	{ 1420000, EV_SENT, 250000, 99999999887, 100000000000, 972711914, 42, 29, 0, 1 },
	{ 1440000, EV_SENT, 250000, 99999999972, 100000000000, 968912258, 43, 30, 0, 1 },
	{ 1460000, EV_SENT, 250000, 99999999972, 100000000000, 968912258, 43, 30, 0, 1 },
	{ 1480000, EV_SENT, 250000, 99999999993, 100000000000, 968912258, 44, 31, 0, 1 },
	{ 1500000, EV_SENT, 250000, 99999999996, 100000000000, 965127444, 45, 31, 0, 1 },
	{ 1520000, EV_SENT, 250000, 99999999998, 100000000000, 965127444, 45, 32, 0, 1 },
	{ 1540000, EV_SENT, 250000, 100000000000, 100000000000, 965127444, 46, 32, 0, 0 },
	{ 1560000, EV_SENT, 250000, 100000000000, 100000000000, 961357415, 46, 32, 0, 0 },
	{ 1580000, EV_SENT, 250000, 100000000000, 100000000000, 961357415, 46, 32, 0, 0 },
	{ 1600000, EV_SENT, 250000, 100000000000, 100000000000, 961357415, 46, 32, 0, 0 },
	{ 1620000, EV_SENT, 250000, 100000000000, 100000000000, 957602113, 46, 32, 0, 0 },
	{ 1640000, EV_SENT, 250000, 100000000000, 100000000000, 957602113, 46, 32, 0, 0 },
	{ 1660000, EV_SENT, 250000, 100000000000, 100000000000, 953861480, 46, 32, 0, 0 },
	{ 1680000, EV_SENT, 250000, 100000000000, 100000000000, 953861480, 46, 32, 0, 0 },
	{ 1700000, EV_SENT, 250000, 100000000000, 100000000000, 953861480, 46, 32, 0, 0 },
	{ 1720000, EV_SENT, 250000, 100000000000, 100000000000, 950135458, 46, 32, 0, 0 },
	{ 1740000, EV_SENT, 250000, 100000000000, 100000000000, 950135458, 46, 32, 0, 0 },
	{ 1760000, EV_SENT, 250000, 100000000000, 100000000000, 950135458, 46, 32, 0, 0 },
	{ 1780000, EV_SENT, 250000, 100000000000, 100000000000, 946423992, 46, 32, 0, 0 },
	{ 1800000, EV_SENT, 250000, 100000000000, 100000000000, 946423992, 46, 32, 0, 0 },
	{ 1820000, EV_SENT, 250000, 100000000000, 100000000000, 946423992, 46, 32, 0, 0 },
	{ 1840000, EV_SENT, 250000, 100000000000, 100000000000, 942727023, 46, 32, 0, 0 },
	{ 1860000, EV_SENT, 250000, 100000000000, 100000000000, 942727023, 46, 32, 0, 0 },
	{ 1880000, EV_SENT, 250000, 100000000000, 100000000000, 939044496, 46, 32, 0, 0 },
	{ 1900000, EV_SENT, 250000, 100000000000, 100000000000, 939044496, 46, 32, 0, 0 },
	{ 1920000, EV_SENT, 250000, 100000000000, 100000000000, 939044496, 46, 32, 0, 0 },
	{ 1940000, EV_SENT, 250000, 100000000000, 100000000000, 935376353, 46, 32, 0, 0 },
	{ 1960000, EV_SENT, 250000, 100000000000, 100000000000, 935376353, 46, 32, 0, 0 },
	{ 1980000, EV_SENT, 250000, 100000000000, 100000000000, 935376353, 46, 32, 0, 0 },
	{ 2000000, EV_SENT, 250000, 100000000000, 100000000000, 931722539, 46, 32, 0, 0 },
};

/* storm: A CNP every 10 us: the rate halves down to the minimum, no lower.
 * Line 100000 Mb/s, rp_min_rate 1000.
 */
static const struct dcqcn_ev ev_storm[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 10000, EV_CNP, 0, 25048565959, 100000000000, 1072701424, 0, 0, 1, 1 },
	{ 20000, EV_CNP, 0, 12536370955, 100000000000, 1072705488, 0, 0, 1, 1 },
	{ 30000, EV_CNP, 0, 6274211666, 100000000000, 1072709536, 0, 0, 1, 1 },
	{ 40000, EV_CNP, 0, 3140110043, 100000000000, 1072713569, 0, 0, 1, 1 },
	{ 50000, EV_CNP, 0, 1571552692, 100000000000, 1072717585, 0, 0, 1, 1 },
	{ 60000, EV_CNP, 0, 1000000000, 100000000000, 1072721586, 0, 0, 1, 1 },
	{ 70000, EV_CNP, 0, 1000000000, 100000000000, 1072725571, 0, 0, 1, 1 },
	{ 80000, EV_CNP, 0, 1000000000, 100000000000, 1072729541, 0, 0, 1, 1 },
	{ 90000, EV_CNP, 0, 1000000000, 100000000000, 1072733495, 0, 0, 1, 1 },
	{ 100000, EV_CNP, 0, 1000000000, 100000000000, 1072737434, 0, 0, 1, 1 },
	{ 110000, EV_CNP, 0, 1000000000, 100000000000, 1072741358, 0, 0, 1, 1 },
	{ 120000, EV_CNP, 0, 1000000000, 100000000000, 1072745266, 0, 0, 1, 1 },
	{ 130000, EV_CNP, 0, 1000000000, 100000000000, 1072749159, 0, 0, 1, 1 },
	{ 140000, EV_CNP, 0, 1000000000, 100000000000, 1072753036, 0, 0, 1, 1 },
	{ 150000, EV_CNP, 0, 1000000000, 100000000000, 1072756899, 0, 0, 1, 1 },
	{ 160000, EV_CNP, 0, 1000000000, 100000000000, 1072760746, 0, 0, 1, 1 },
	{ 170000, EV_CNP, 0, 1000000000, 100000000000, 1072764578, 0, 0, 1, 1 },
	{ 180000, EV_CNP, 0, 1000000000, 100000000000, 1072768396, 0, 0, 1, 1 },
	{ 190000, EV_CNP, 0, 1000000000, 100000000000, 1072772198, 0, 0, 1, 1 },
	{ 200000, EV_CNP, 0, 1000000000, 100000000000, 1072775986, 0, 0, 1, 1 },
	{ 210000, EV_CNP, 0, 1000000000, 100000000000, 1072779758, 0, 0, 1, 1 },
	{ 220000, EV_CNP, 0, 1000000000, 100000000000, 1072783517, 0, 0, 1, 1 },
	{ 230000, EV_CNP, 0, 1000000000, 100000000000, 1072787260, 0, 0, 1, 1 },
	{ 240000, EV_CNP, 0, 1000000000, 100000000000, 1072790989, 0, 0, 1, 1 },
	{ 250000, EV_CNP, 0, 1000000000, 100000000000, 1072794703, 0, 0, 1, 1 },
	{ 260000, EV_CNP, 0, 1000000000, 100000000000, 1072798403, 0, 0, 1, 1 },
	{ 270000, EV_CNP, 0, 1000000000, 100000000000, 1072802088, 0, 0, 1, 1 },
	{ 280000, EV_CNP, 0, 1000000000, 100000000000, 1072805759, 0, 0, 1, 1 },
	{ 290000, EV_CNP, 0, 1000000000, 100000000000, 1072809415, 0, 0, 1, 1 },
	{ 300000, EV_CNP, 0, 1000000000, 100000000000, 1072813057, 0, 0, 1, 1 },
	{ 310000, EV_CNP, 0, 1000000000, 100000000000, 1072816685, 0, 0, 1, 1 },
	{ 320000, EV_CNP, 0, 1000000000, 100000000000, 1072820299, 0, 0, 1, 1 },
	{ 330000, EV_CNP, 0, 1000000000, 100000000000, 1072823899, 0, 0, 1, 1 },
	{ 340000, EV_CNP, 0, 1000000000, 100000000000, 1072827485, 0, 0, 1, 1 },
	{ 350000, EV_CNP, 0, 1000000000, 100000000000, 1072831056, 0, 0, 1, 1 },
	{ 360000, EV_CNP, 0, 1000000000, 100000000000, 1072834614, 0, 0, 1, 1 },
	{ 370000, EV_CNP, 0, 1000000000, 100000000000, 1072838158, 0, 0, 1, 1 },
	{ 380000, EV_CNP, 0, 1000000000, 100000000000, 1072841688, 0, 0, 1, 1 },
	{ 390000, EV_CNP, 0, 1000000000, 100000000000, 1072845204, 0, 0, 1, 1 },
};

/* mindec: rp_min_dec_fac 80: no cut takes more than a fifth of the rate.
 * Line 100000 Mb/s, rp_min_dec_fac 80.
 */
static const struct dcqcn_ev ev_mindec[] = {
	{ 0, EV_CNP, 0, 80000000000, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 10000, EV_CNP, 0, 64000000000, 100000000000, 1072701424, 0, 0, 1, 1 },
	{ 20000, EV_CNP, 0, 51200000000, 100000000000, 1072705488, 0, 0, 1, 1 },
	{ 30000, EV_CNP, 0, 40960000000, 100000000000, 1072709536, 0, 0, 1, 1 },
};

/* clamp_off: No increase between two CNPs: RT is left where it was. Line
 * 100000 Mb/s, default parameters.
 */
static const struct dcqcn_ev ev_clamp_off[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 200000, EV_CNP, 0, 25339251570, 100000000000, 1060228705, 0, 0, 1, 1 },
};

/* clamp_on: rp_clamp_tgt_rate: RT <- RC on every CNP. Line 100000 Mb/s,
 * rp_clamp_tgt_rate 1.
 */
static const struct dcqcn_ev ev_clamp_on[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 200000, EV_CNP, 0, 25339251570, 50048637390, 1060228705, 0, 0, 1, 1 },
};

/* clamp_ati: A timer increase between the CNPs: RT <- RC
 * (rp_clamp_tgt_rate_ati). Line 100000 Mb/s, default parameters.
 */
static const struct dcqcn_ev ev_clamp_ati[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 400000, EV_CNP, 0, 38557345163, 75024318695, 1043824599, 0, 0, 1, 1 },
};

/* clamp_noati: The same with rp_clamp_tgt_rate_ati 0: RT is left where it
 * was. Line 100000 Mb/s, rp_clamp_tgt_rate_ati 0.
 */
static const struct dcqcn_ev ev_clamp_noati[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 400000, EV_CNP, 0, 38557345163, 100000000000, 1043824599, 0, 0, 1, 1 },
};

/* clamp_byte: A byte-counter increase between the CNPs: RT <- RC, ati or
 * not. Line 100000 Mb/s, rp_clamp_tgt_rate_ati 0.
 */
static const struct dcqcn_ev ev_clamp_byte[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 100000, EV_SENT, 32767, 75024318695, 100000000000, 1068507120, 0, 1, 0, 1 },
	{ 200000, EV_CNP, 0, 37984252607, 75024318695, 1060228705, 0, 0, 1, 1 },
};

/* monitor: rp_rate_reduce_monitor_period 100 us: closer CNPs are ignored.
 * Line 100000 Mb/s, rp_rate_reduce_monitor_period 100.
 */
static const struct dcqcn_ev ev_monitor[] = {
	{ 0, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 1, 1 },
	{ 50000, EV_CNP, 0, 50048637390, 100000000000, 1072697344, 0, 0, 0, 1 },
	{ 99999, EV_CNP, 0, 50048637390, 100000000000, 1068507120, 0, 0, 0, 1 },
	{ 100000, EV_CNP, 0, 25145840647, 100000000000, 1068527568, 0, 0, 1, 1 },
	{ 150000, EV_CNP, 0, 25145840647, 100000000000, 1068527568, 0, 0, 0, 1 },
	{ 350000, EV_CNP, 0, 12827334028, 100000000000, 1052014602, 0, 0, 1, 1 },
};

/* first: rp_rate_to_set_on_first_cnp: the first CNP of an unlimited QP.
 * Line 100000 Mb/s, rp_rate_to_set_on_first_cnp 20000.
 */
static const struct dcqcn_ev ev_first[] = {
	{ 0, EV_CNP, 0, 20000000000, 20000000000, 1072697344, 0, 0, 1, 1 },
	{ 100000, EV_CNP, 0, 10048561543, 20000000000, 1068527568, 0, 0, 1, 1 },
	{ 1000000000, EV_ADV, 0, 36640000000, 36645000000, 0, 3333, 0, 0, 1 },
	{ 10000000000, EV_ADV, 0, 100000000000, 100000000000, 0, 16027, 0, 0, 0 },
	{ 10000000001, EV_CNP, 0, 20000000000, 20000000000, 1072697344, 0, 0, 1, 1 },
};

/* gap: 100 byte stages at once, then gaps: hyper increase growing with T.
 * Line 100000 Mb/s, rp_rate_to_set_on_first_cnp 1000.
 */
static const struct dcqcn_ev ev_gap[] = {
	{ 0, EV_CNP, 0, 1000000000, 1000000000, 1072697344, 0, 0, 1, 1 },
	{ 1000, EV_SENT, 3276700, 1475000000, 1480000000, 1072697344, 0, 100, 0, 1 },
	{ 300000, EV_ADV, 0, 1480000000, 1485000000, 1051909266, 1, 100, 0, 1 },
	{ 600000, EV_ADV, 0, 1485000000, 1490000000, 1031524046, 2, 100, 0, 1 },
	{ 1000000, EV_ADV, 0, 1490000000, 1495000000, 999726208, 3, 100, 0, 1 },
	{ 1500000, EV_ADV, 0, 1500000000, 1505000000, 965123774, 5, 100, 0, 1 },
	{ 2000000, EV_ADV, 0, 1591250000, 1655000000, 931718995, 7, 100, 0, 1 },
	{ 3000000, EV_ADV, 0, 3354892578, 3755000000, 868338030, 14, 100, 0, 1 },
	{ 5000000, EV_ADV, 0, 13104999987, 14155000000, 754217433, 27, 100, 0, 1 },
	{ 7000000, EV_ADV, 0, 31305000000, 33005000000, 652536074, 40, 100, 0, 1 },
	{ 10000000, EV_ADV, 0, 75805000000, 78505000000, 528221583, 60, 100, 0, 1 },
	{ 15000000, EV_ADV, 0, 99999999971, 100000000000, 369943770, 94, 100, 0, 1 },
	{ 20000000, EV_ADV, 0, 100000000000, 100000000000, 259092770, 99, 100, 0, 0 },
	{ 30000000, EV_ADV, 0, 100000000000, 100000000000, 127085045, 99, 100, 0, 0 },
	{ 1000000000, EV_ADV, 0, 100000000000, 100000000000, 0, 99, 100, 0, 0 },
	{ 3600000000000, EV_ADV, 0, 100000000000, 100000000000, 0, 99, 100, 0, 0 },
};

/* gap_flat: As gap, with BC = 20: hyper by R_HAI (20 - F) once T passes
 * BC. Line 400000 Mb/s, rp_rate_to_set_on_first_cnp 1000.
 */
static const struct dcqcn_ev ev_gap_flat[] = {
	{ 0, EV_CNP, 0, 1000000000, 1000000000, 1072697344, 0, 0, 1, 1 },
	{ 1000, EV_SENT, 655340, 1075000076, 1080000000, 1072697344, 0, 20, 0, 1 },
	{ 1000000, EV_ADV, 0, 1090000010, 1095000000, 999726208, 3, 20, 0, 1 },
	{ 2000000, EV_ADV, 0, 1191250001, 1255000000, 931718995, 7, 20, 0, 1 },
	{ 4000000, EV_ADV, 0, 6404998322, 7105000000, 809268608, 20, 20, 0, 1 },
	{ 10000000, EV_ADV, 0, 36355000000, 37105000000, 528221583, 60, 20, 0, 1 },
	{ 20000000, EV_ADV, 0, 86605000000, 87355000000, 259092770, 127, 20, 0, 1 },
	{ 40000000, EV_ADV, 0, 186355000000, 187105000000, 62335235, 260, 20, 0, 1 },
	{ 60000000, EV_ADV, 0, 286855000000, 287605000000, 15056072, 394, 20, 0, 1 },
	{ 80000000, EV_ADV, 0, 386605000000, 387355000000, 3622347, 527, 20, 0, 1 },
	{ 100000000, EV_ADV, 0, 400000000000, 400000000000, 871502, 574, 20, 0, 0 },
	{ 3600000000000, EV_ADV, 0, 400000000000, 400000000000, 0, 574, 20, 0, 0 },
};

static u64 absdiff(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

static void params(struct sroce_dcqcn_rp_params *prm)
{
	sroce_dcqcn_rp_params_default(prm);
}

/* Apply one event, as the script has it; returns what cnp() returned. */
static bool apply(struct sroce_dcqcn_rp *rp,
		  const struct sroce_dcqcn_rp_params *prm,
		  const struct dcqcn_ev *ev)
{
	switch (ev->kind) {
	case EV_SENT:
		sroce_dcqcn_rp_sent(rp, prm, ev->arg, ev->t);
		return false;
	case EV_CNP:
		return sroce_dcqcn_rp_cnp(rp, prm, ev->t);
	default:
		sroce_dcqcn_rp_advance(rp, prm, ev->t);
		return false;
	}
}

static void expect_model(struct kunit *test, const struct sroce_dcqcn_rp *rp,
			 const struct dcqcn_ev *ev, bool handled, int row)
{
	KUNIT_EXPECT_LE_MSG(test, absdiff(rp->rc, ev->rc), div_u64(ev->rc, 1000000),
			    "row %d: RC %llu, model %llu", row, rp->rc, ev->rc);
	KUNIT_EXPECT_LE_MSG(test, absdiff(rp->rt, ev->rt), div_u64(ev->rt, 1000000),
			    "row %d: RT %llu, model %llu", row, rp->rt, ev->rt);
	KUNIT_EXPECT_LE_MSG(test, absdiff(rp->alpha, ev->alpha), 1ULL << 10,
			    "row %d: alpha %u, model %u", row, rp->alpha, ev->alpha);
	KUNIT_EXPECT_EQ_MSG(test, rp->t, ev->st, "row %d: T", row);
	KUNIT_EXPECT_EQ_MSG(test, rp->bc, ev->bc, "row %d: BC", row);
	KUNIT_EXPECT_EQ_MSG(test, handled, !!ev->handled, "row %d: handled", row);
	KUNIT_EXPECT_EQ_MSG(test, sroce_dcqcn_rp_limited(rp), !!ev->limited,
			    "row %d: limited", row);
}

/* Start at time 0 and replay @n events, comparing after each. */
static void replay(struct kunit *test, struct sroce_dcqcn_rp *rp,
		   const struct sroce_dcqcn_rp_params *prm, u32 line_mbps,
		   const struct dcqcn_ev *ev, int n)
{
	const char *why = NULL;
	int i;

	KUNIT_ASSERT_EQ_MSG(test, sroce_dcqcn_rp_params_check(prm, &why), 0,
			    "bad %s", why);
	sroce_dcqcn_rp_init(rp, prm, line_mbps, 0);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(rp));
	for (i = 0; i < n; i++)
		expect_model(test, rp, &ev[i], apply(rp, prm, &ev[i]), i);
}

/* RC just before the last event of a script reacts to it */
static u64 rc_before_last(struct kunit *test,
			  const struct sroce_dcqcn_rp_params *prm, u32 line_mbps,
			  const struct dcqcn_ev *ev, int n)
{
	struct sroce_dcqcn_rp rp;
	int i;

	sroce_dcqcn_rp_init(&rp, prm, line_mbps, 0);
	for (i = 0; i < n - 1; i++)
		apply(&rp, prm, &ev[i]);
	sroce_dcqcn_rp_advance(&rp, prm, ev[n - 1].t);
	return rp.rc;
}

/* Two states are the same, field by field (padding aside). */
static void expect_same(struct kunit *test, const struct sroce_dcqcn_rp *a,
			const struct sroce_dcqcn_rp *b, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, a->rc, b->rc, "%s: RC", what);
	KUNIT_EXPECT_EQ_MSG(test, a->rt, b->rt, "%s: RT", what);
	KUNIT_EXPECT_EQ_MSG(test, a->now_ns, b->now_ns, "%s: now", what);
	KUNIT_EXPECT_EQ_MSG(test, a->timer_ns, b->timer_ns, "%s: timer", what);
	KUNIT_EXPECT_EQ_MSG(test, a->bytes, b->bytes, "%s: bytes", what);
	KUNIT_EXPECT_EQ_MSG(test, a->alpha, b->alpha, "%s: alpha", what);
	KUNIT_EXPECT_EQ_MSG(test, a->alpha_periods, b->alpha_periods, "%s: periods", what);
	KUNIT_EXPECT_EQ_MSG(test, a->t, b->t, "%s: T", what);
	KUNIT_EXPECT_EQ_MSG(test, a->bc, b->bc, "%s: BC", what);
	KUNIT_EXPECT_EQ_MSG(test, a->limited, b->limited, "%s: limited", what);
	KUNIT_EXPECT_EQ_MSG(test, a->inc_timer, b->inc_timer, "%s: inc_timer", what);
	KUNIT_EXPECT_EQ_MSG(test, a->inc_byte, b->inc_byte, "%s: inc_byte", what);
}

/* Catch @rp up to @until in calls @step apart. */
static void advance_in_steps(struct sroce_dcqcn_rp *rp,
			     const struct sroce_dcqcn_rp_params *prm,
			     u64 step, u64 until)
{
	u64 t;

	for (t = rp->now_ns + step; t < until; t += step)
		sroce_dcqcn_rp_advance(rp, prm, t);
	sroce_dcqcn_rp_advance(rp, prm, until);
}

/*
 * One CNP on an unlimited QP at line rate: α starts from the initial value
 * (1023/1024) and is updated before the cut, so RC = line (1 - α/2) with
 * α = (1020 α0 + 4)/1024, a little over half; RT stays at line rate.
 * Three fast-recovery steps later a second CNP cuts with the decayed α.
 */
static void sroce_dcqcn_cnp_cut(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp;

	params(&prm);
	replay(test, &rp, &prm, 100000, ev_cut, ARRAY_SIZE(ev_cut));

	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_rate_mbps(&rp), 100000);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_alpha(&rp), 1023);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 10 * US));
	/* 50048.637 Mb/s; α 1023.004/1024 */
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_rate_mbps(&rp), 50049);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_alpha(&rp), 1023);
	KUNIT_EXPECT_EQ(test, rp.rt, 100000 * MBPS);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_limited(&rp));
}

/*
 * α decays by 1 - g every 55 µs after the CNP: at each period boundary,
 * not 1 ns before.  One call over 987 periods, 987 calls of one period
 * each, and the model agree.
 */
static void sroce_dcqcn_alpha_decay(struct kunit *test)
{
	const struct dcqcn_ev *last = &ev_alpha[ARRAY_SIZE(ev_alpha) - 3];
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp, one, many;
	u64 k = 55 * US;
	int j;

	params(&prm);
	replay(test, &rp, &prm, 100000, ev_alpha, ARRAY_SIZE(ev_alpha));

	KUNIT_ASSERT_EQ(test, last->t, 987 * k);
	sroce_dcqcn_rp_init(&one, &prm, 100000, 0);
	KUNIT_ASSERT_TRUE(test, sroce_dcqcn_rp_cnp(&one, &prm, 0));
	many = one;
	sroce_dcqcn_rp_advance(&one, &prm, 987 * k);
	for (j = 1; j <= 987; j++)
		sroce_dcqcn_rp_advance(&many, &prm, j * k);
	expect_same(test, &one, &many, "987 periods");
	expect_model(test, &one, last, false, 987);
	/* 0.999 (1020/1024)^987: 0.0210, 21.5/1024 */
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_alpha(&one), 21);
}

/*
 * After the cut the timer alone drives (no bytes sent): T = 1..4 are fast
 * recovery, RC halving its distance to RT = line rate each time; from T =
 * F = 5 on additive, RT already at line rate and staying there.
 */
static void sroce_dcqcn_fast_recovery(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp;
	u64 d;
	int j;

	params(&prm);
	replay(test, &rp, &prm, 100000, ev_recovery, ARRAY_SIZE(ev_recovery));

	/* the same, exactly: each step halves RT - RC, rounding down */
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_ASSERT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	d = rp.rt - rp.rc;
	for (j = 1; j <= 10; j++) {
		sroce_dcqcn_rp_advance(&rp, &prm, j * 300 * US);
		KUNIT_EXPECT_EQ(test, rp.t, j);
		KUNIT_EXPECT_EQ(test, rp.rt, 100000 * MBPS);
		KUNIT_EXPECT_EQ(test, rp.rt - rp.rc, d >> j);
	}
}

/*
 * RT well below line rate (rp_clamp_tgt_rate and two CNPs), then 250 kB
 * every 20 µs with B = 1 MB and a 55 µs timer: additive steps of R_AI =
 * 40 Mb/s from T or BC = F on, hyper steps of R_HAI (min(T, BC) - F) once
 * both exceed F, with the byte threshold and the period halved, until
 * line rate.  The table checks T, BC and both rates at each send.
 */
static void sroce_dcqcn_additive_hyper(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp;
	int i;

	params(&prm);
	prm.rp_clamp_tgt_rate = 1;
	prm.rp_time_reset = 55;
	prm.rp_byte_reset = 1000000;
	prm.rp_ai_rate = 40;
	prm.rp_hai_rate = 200;
	replay(test, &rp, &prm, 100000, ev_hyper, ARRAY_SIZE(ev_hyper));

	/*
	 * The increments, exactly: 300 µs, the timer's T = 5 is additive
	 * (+40 Mb/s); 480 µs, BC = 6 against T = 8: hyper, i = 1 (+200).
	 */
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	for (i = 0; i < ARRAY_SIZE(ev_hyper); i++) {
		u64 rt = rp.rt;

		apply(&rp, &prm, &ev_hyper[i]);
		if (ev_hyper[i].t == 300 * US) {
			KUNIT_EXPECT_EQ(test, rp.t, 5);
			KUNIT_EXPECT_EQ(test, rp.rt - rt, 40 * MBPS);
		}
		if (ev_hyper[i].t == 480 * US) {
			KUNIT_EXPECT_EQ(test, rp.bc, 6);
			KUNIT_EXPECT_EQ(test, rp.rt - rt, 200 * MBPS);
		}
	}
	KUNIT_EXPECT_EQ(test, rp.rc, 100000 * MBPS);
}

/*
 * A CNP every 10 µs: α stays near 1 and each cut nearly halves RC, down to
 * rp_min_rate and never below.  With rp_min_dec_fac 80 no cut takes more
 * than a fifth.
 */
static void sroce_dcqcn_min_rate_floor(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp;
	int i;

	params(&prm);
	prm.rp_min_rate = 1000;
	replay(test, &rp, &prm, 100000, ev_storm, ARRAY_SIZE(ev_storm));
	KUNIT_EXPECT_EQ(test, rp.rc, 1000 * MBPS);

	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	for (i = 0; i < 100; i++) {
		KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, i * 10 * US));
		KUNIT_EXPECT_GE(test, rp.rc, 1000 * MBPS);
	}
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_rate_mbps(&rp), 1000);

	params(&prm);
	prm.rp_min_dec_fac = 80;
	replay(test, &rp, &prm, 100000, ev_mindec, ARRAY_SIZE(ev_mindec));
	KUNIT_EXPECT_EQ(test, rp.rc, 40960 * MBPS);
}

/*
 * RT <- RC on a CNP: always with rp_clamp_tgt_rate; otherwise only after
 * an increase since the last CNP, a timer one counting only with
 * rp_clamp_tgt_rate_ati, a byte-counter one always.
 */
static void sroce_dcqcn_clamp_tgt_rate(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp off, on;
	u64 rc;

	params(&prm);
	replay(test, &off, &prm, 100000, ev_clamp_off, ARRAY_SIZE(ev_clamp_off));
	prm.rp_clamp_tgt_rate = 1;
	replay(test, &on, &prm, 100000, ev_clamp_on, ARRAY_SIZE(ev_clamp_on));
	/* the same cuts; RT is line rate, or RC before the second cut */
	rc = rc_before_last(test, &prm, 100000, ev_clamp_on, ARRAY_SIZE(ev_clamp_on));
	KUNIT_EXPECT_EQ(test, off.rc, on.rc);
	KUNIT_EXPECT_EQ(test, off.rt, 100000 * MBPS);
	KUNIT_EXPECT_EQ(test, on.rt, rc);

	params(&prm);
	replay(test, &on, &prm, 100000, ev_clamp_ati, ARRAY_SIZE(ev_clamp_ati));
	rc = rc_before_last(test, &prm, 100000, ev_clamp_ati, ARRAY_SIZE(ev_clamp_ati));
	KUNIT_EXPECT_EQ(test, on.rt, rc);
	prm.rp_clamp_tgt_rate_ati = 0;
	replay(test, &off, &prm, 100000, ev_clamp_noati, ARRAY_SIZE(ev_clamp_noati));
	KUNIT_EXPECT_EQ(test, off.rc, on.rc);
	KUNIT_EXPECT_EQ(test, off.rt, 100000 * MBPS);
	KUNIT_EXPECT_LT(test, on.rt, 100000 * MBPS);

	replay(test, &on, &prm, 100000, ev_clamp_byte, ARRAY_SIZE(ev_clamp_byte));
	rc = rc_before_last(test, &prm, 100000, ev_clamp_byte, ARRAY_SIZE(ev_clamp_byte));
	KUNIT_EXPECT_EQ(test, on.rt, rc);
}

/*
 * rp_rate_reduce_monitor_period 100 µs: CNPs closer than that to the last
 * handled one are ignored altogether (false, no cut, no α update), one
 * exactly 100 µs later is handled, and an ignored one does not restart
 * the period.
 */
static void sroce_dcqcn_monitor_period(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp, before;

	params(&prm);
	prm.rp_rate_reduce_monitor_period = 100;
	replay(test, &rp, &prm, 100000, ev_monitor, ARRAY_SIZE(ev_monitor));

	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	sroce_dcqcn_rp_advance(&rp, &prm, 50 * US);
	before = rp;
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 50 * US));
	expect_same(test, &rp, &before, "ignored CNP");
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 100 * US));
	KUNIT_EXPECT_LT(test, rp.rc, before.rc);
}

/*
 * rp_rate_to_set_on_first_cnp 20 Gb/s: the first CNP of an unlimited QP
 * sets RC = RT = 20 Gb/s, the next one cuts as usual; back at line rate
 * (additive, 5 Mb/s per 300 µs: 16027 steps), the next CNP is a first
 * one again.
 */
static void sroce_dcqcn_first_cnp_rate(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp;

	params(&prm);
	prm.rp_rate_to_set_on_first_cnp = 20000;
	replay(test, &rp, &prm, 100000, ev_first, ARRAY_SIZE(ev_first));
	KUNIT_EXPECT_EQ(test, rp.rc, 20000 * MBPS);
	KUNIT_EXPECT_EQ(test, rp.rt, 20000 * MBPS);

	/* kept within the maximum rate */
	prm.rp_max_rate = 10000;
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_EQ(test, rp.rc, 10000 * MBPS);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	KUNIT_EXPECT_EQ(test, rp.rc, 10000 * MBPS);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(&rp));
}

/*
 * Long gaps after many byte stages at once (BC = 100, or 20): the timer
 * alone, through additive, hyper growing with T and hyper flat at BC - F,
 * back to line rate within 15 ms (or 100 ms) and still there an hour
 * later.  Each checkpoint also reached in 50 µs calls: the same state.
 */
static void sroce_dcqcn_long_gap(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp, steps;
	int i;

	params(&prm);
	prm.rp_rate_to_set_on_first_cnp = 1000;
	replay(test, &rp, &prm, 100000, ev_gap, ARRAY_SIZE(ev_gap));
	KUNIT_EXPECT_EQ(test, rp.rc, 100000 * MBPS);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_alpha(&rp), 0);
	replay(test, &rp, &prm, 400000, ev_gap_flat, ARRAY_SIZE(ev_gap_flat));

	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	apply(&rp, &prm, &ev_gap[0]);
	apply(&rp, &prm, &ev_gap[1]);
	steps = rp;
	for (i = 2; i < ARRAY_SIZE(ev_gap) && ev_gap[i].t <= 30 * MS; i++) {
		apply(&rp, &prm, &ev_gap[i]);
		advance_in_steps(&steps, &prm, 50 * US, ev_gap[i].t);
		expect_same(test, &rp, &steps, "gap");
	}

	sroce_dcqcn_rp_init(&rp, &prm, 400000, 0);
	apply(&rp, &prm, &ev_gap_flat[0]);
	apply(&rp, &prm, &ev_gap_flat[1]);
	steps = rp;
	for (i = 2; i < ARRAY_SIZE(ev_gap_flat) && ev_gap_flat[i].t <= 100 * MS; i++) {
		apply(&rp, &prm, &ev_gap_flat[i]);
		advance_in_steps(&steps, &prm, 50 * US, ev_gap_flat[i].t);
		expect_same(test, &rp, &steps, "gap_flat");
	}
}

/*
 * Bounded catch-up: a 1 µs timer, 1 Mb/s increments and a 10 Tb/s line
 * make ten million steps from 1 Mb/s back to line rate, billions in an
 * hour; stepping through them would not finish within KUnit's timeout.
 * Checked exactly against the closed forms worked out by hand:
 *  - timer alone (BC = 0, F = 1): additive from T = 1, RT = 1 + n Mb/s
 *    after n steps, RT - RC settled at R_AI - 1 bit/s (RC's average is
 *    rounded up);
 *  - 70000 byte stages at once: BC saturates at 65535, RT = 70001 Mb/s;
 *    then the timer: T = 1 additive, T = 2.. hyper with i = T - 1 and a
 *    0.5 µs period, so 1998 stages by 1 ms and RT = 70001 + 1 + (1 + ..
 *    + 1997) Mb/s, RT - RC = R_HAI (i - 1) = 1996 Mb/s.
 */
static void sroce_dcqcn_bounded_catch_up(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp, steps, bytes;

	params(&prm);
	prm.rp_time_reset = 1;
	prm.rp_dce_tcp_rtt = 1;
	prm.rp_threshold = 1;
	prm.rp_ai_rate = 1;
	prm.rp_hai_rate = 1;
	prm.rp_byte_reset = 1000000;
	prm.rp_rate_to_set_on_first_cnp = 1;
	KUNIT_ASSERT_EQ(test, sroce_dcqcn_rp_params_check(&prm, NULL), 0);

	sroce_dcqcn_rp_init(&rp, &prm, 0, 0);
	KUNIT_EXPECT_EQ(test, rp.rc, (u64)SROCE_DCQCN_MAX_MBPS * MBPS);
	KUNIT_ASSERT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	KUNIT_EXPECT_EQ(test, rp.rc, 1 * MBPS);
	bytes = rp;
	steps = rp;

	sroce_dcqcn_rp_advance(&rp, &prm, 2 * SEC);
	KUNIT_EXPECT_EQ(test, rp.rt, 2000001 * MBPS);
	KUNIT_EXPECT_EQ(test, rp.rt - rp.rc, 1 * MBPS - 1);
	KUNIT_EXPECT_EQ(test, rp.t, SROCE_DCQCN_STAGE_MAX);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_limited(&rp));
	advance_in_steps(&steps, &prm, 1 * MS, 2 * SEC);
	expect_same(test, &rp, &steps, "2 s");

	sroce_dcqcn_rp_advance(&rp, &prm, 3600 * SEC);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(&rp));
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_rate_mbps(&rp), SROCE_DCQCN_MAX_MBPS);
	KUNIT_EXPECT_EQ(test, rp.rt, rp.rc);
	KUNIT_EXPECT_EQ(test, rp.alpha, 0);
	/* the end of time: clamped, and no overflow on the way */
	sroce_dcqcn_rp_advance(&steps, &prm, U64_MAX);
	KUNIT_EXPECT_EQ(test, steps.now_ns, (u64)S64_MAX);
	KUNIT_EXPECT_EQ(test, steps.rc, rp.rc);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(&steps));

	sroce_dcqcn_rp_sent(&bytes, &prm, 70000 * 1000000ULL, 0);
	KUNIT_EXPECT_EQ(test, bytes.bc, SROCE_DCQCN_STAGE_MAX);
	KUNIT_EXPECT_EQ(test, bytes.rt, 70001 * MBPS);
	steps = bytes;
	sroce_dcqcn_rp_advance(&bytes, &prm, 1 * MS);
	KUNIT_EXPECT_EQ(test, bytes.t, 1998);
	KUNIT_EXPECT_EQ(test, bytes.rt, (70002 + 1997 * 1998 / 2) * MBPS);
	KUNIT_EXPECT_EQ(test, bytes.rt - bytes.rc, 1996 * MBPS);
	advance_in_steps(&steps, &prm, 250, 1 * MS);
	expect_same(test, &bytes, &steps, "1 ms after the bytes");
	sroce_dcqcn_rp_advance(&bytes, &prm, 3600 * SEC);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(&bytes));
	KUNIT_EXPECT_EQ(test, bytes.rc, (u64)SROCE_DCQCN_MAX_MBPS * MBPS);
}

/*
 * What is not in the model's scripts: time going backwards, an unlimited
 * QP counting no bytes, the maximum rate, a CNP that may not cut.
 */
static void sroce_dcqcn_edges(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp, before;

	params(&prm);
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 5 * SEC);
	sroce_dcqcn_rp_sent(&rp, &prm, 1ULL << 40, 5 * SEC);
	KUNIT_EXPECT_EQ(test, rp.bytes, 0);
	KUNIT_EXPECT_EQ(test, rp.bc, 0);

	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 6 * SEC));
	before = rp;
	/* an earlier time counts as the last one: nothing moves */
	sroce_dcqcn_rp_advance(&rp, &prm, 1 * SEC);
	expect_same(test, &rp, &before, "clock back");
	/* ... and a CNP then is within the monitor period of the last */
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 1 * SEC));

	/* rp_max_rate below the line caps the rates; above it, the line */
	prm.rp_max_rate = 25000;
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_rate_mbps(&rp), 25000);
	prm.rp_max_rate = 400000;
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_rate_mbps(&rp), 100000);
	/* lowered on a limited QP: both rates follow at the next call */
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	prm.rp_max_rate = 1000;
	sroce_dcqcn_rp_advance(&rp, &prm, 1);
	KUNIT_EXPECT_EQ(test, rp.rc, 1000 * MBPS);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(&rp));

	/* rp_min_dec_fac 100: a CNP is handled but cannot cut */
	params(&prm);
	prm.rp_min_dec_fac = 100;
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	KUNIT_EXPECT_EQ(test, rp.rc, 100000 * MBPS);
	KUNIT_EXPECT_FALSE(test, sroce_dcqcn_rp_limited(&rp));
}

struct bad_param {
	const char *field;
	size_t off;
	u32 value;
};

#define BAD(f, v) { #f, offsetof(struct sroce_dcqcn_rp_params, f), v }

static const struct bad_param bad_params[] = {
	BAD(rp_clamp_tgt_rate, 2),
	BAD(rp_clamp_tgt_rate_ati, 2),
	BAD(rp_time_reset, 0),
	BAD(rp_time_reset, SROCE_DCQCN_MAX_US + 1),
	BAD(rp_byte_reset, 0),
	BAD(rp_byte_reset, SROCE_DCQCN_MAX_BYTE_RESET + 1),
	BAD(rp_threshold, 0),
	BAD(rp_threshold, 32),
	BAD(rp_ai_rate, 0),
	BAD(rp_ai_rate, SROCE_DCQCN_MAX_MBPS + 1),
	BAD(rp_hai_rate, 0),
	BAD(rp_hai_rate, SROCE_DCQCN_MAX_MBPS + 1),
	BAD(rp_max_rate, SROCE_DCQCN_MAX_MBPS + 1),
	BAD(rp_min_rate, 0),
	BAD(rp_min_rate, SROCE_DCQCN_MAX_MBPS + 1),
	BAD(rp_min_dec_fac, 0),
	BAD(rp_min_dec_fac, 101),
	BAD(rp_rate_to_set_on_first_cnp, SROCE_DCQCN_MAX_MBPS + 1),
	BAD(rp_dce_tcp_g, 1024),
	BAD(rp_dce_tcp_rtt, 0),
	BAD(rp_dce_tcp_rtt, SROCE_DCQCN_MAX_US + 1),
	BAD(rp_rate_reduce_monitor_period, 0),
	BAD(rp_rate_reduce_monitor_period, SROCE_DCQCN_MAX_US + 1),
	BAD(rp_initial_alpha_value, 1024),
};

/* Each field out of range is refused and named; the defaults and the
 * edges of the ranges are accepted.
 */
static void sroce_dcqcn_params_check(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	const char *why;
	int i;

	params(&prm);
	why = NULL;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_params_check(&prm, &why), 0);
	KUNIT_EXPECT_NULL(test, why);

	for (i = 0; i < ARRAY_SIZE(bad_params); i++) {
		params(&prm);
		*(u32 *)((u8 *)&prm + bad_params[i].off) = bad_params[i].value;
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test, sroce_dcqcn_rp_params_check(&prm, &why),
				    -EINVAL, "%s %u", bad_params[i].field,
				    bad_params[i].value);
		KUNIT_EXPECT_STREQ(test, why ? why : "(none)", bad_params[i].field);
		/* no out-parameter: still refused */
		KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_params_check(&prm, NULL), -EINVAL);
	}

	/* the minimum above a set maximum */
	params(&prm);
	prm.rp_max_rate = 100;
	prm.rp_min_rate = 101;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_params_check(&prm, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "rp_min_rate");
	prm.rp_min_rate = 100;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_params_check(&prm, NULL), 0);

	/* the edges */
	params(&prm);
	prm.rp_clamp_tgt_rate = 1;
	prm.rp_clamp_tgt_rate_ati = 0;
	prm.rp_time_reset = SROCE_DCQCN_MAX_US;
	prm.rp_byte_reset = SROCE_DCQCN_MAX_BYTE_RESET;
	prm.rp_threshold = SROCE_DCQCN_MAX_THRESHOLD;
	prm.rp_ai_rate = SROCE_DCQCN_MAX_MBPS;
	prm.rp_hai_rate = 1;
	prm.rp_min_rate = SROCE_DCQCN_MAX_MBPS;
	prm.rp_min_dec_fac = 100;
	prm.rp_rate_to_set_on_first_cnp = SROCE_DCQCN_MAX_MBPS;
	prm.rp_dce_tcp_g = 0;
	prm.rp_dce_tcp_rtt = 1;
	prm.rp_rate_reduce_monitor_period = SROCE_DCQCN_MAX_US;
	prm.rp_initial_alpha_value = 0;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_params_check(&prm, NULL), 0);
	prm.rp_dce_tcp_g = 1023;
	prm.rp_initial_alpha_value = 1023;
	prm.rp_min_dec_fac = 1;
	prm.rp_min_rate = 1;
	prm.rp_max_rate = 1;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_params_check(&prm, NULL), 0);
}

/* Time on the wire at RC: bytes * 8 / RC, in ns, rounded down. */
static void sroce_dcqcn_tx_ns(struct kunit *test)
{
	struct sroce_dcqcn_rp_params prm;
	struct sroce_dcqcn_rp rp;

	params(&prm);
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, 4096), 327);	/* 327.68 */
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, 0), 0);

	prm.rp_rate_to_set_on_first_cnp = 1000;
	sroce_dcqcn_rp_init(&rp, &prm, 100000, 0);
	KUNIT_ASSERT_TRUE(test, sroce_dcqcn_rp_cnp(&rp, &prm, 0));
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, 1500), 12000);
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, 4096), 32768);

	/* the largest products: 2^32 - 1 bytes at 1 Mb/s, and at 3 bit/s */
	rp.rc = 1 * MBPS;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, U32_MAX), 34359738360000ULL);
	rp.rc = 3;
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, U32_MAX),
			11453246120000000000ULL);
	/* no rate (a zeroed state): never */
	memset(&rp, 0, sizeof(rp));
	KUNIT_EXPECT_EQ(test, sroce_dcqcn_rp_tx_ns(&rp, 1), U64_MAX);
}

static struct kunit_case sroce_dcqcn_cases[] = {
	KUNIT_CASE(sroce_dcqcn_cnp_cut),
	KUNIT_CASE(sroce_dcqcn_alpha_decay),
	KUNIT_CASE(sroce_dcqcn_fast_recovery),
	KUNIT_CASE(sroce_dcqcn_additive_hyper),
	KUNIT_CASE(sroce_dcqcn_min_rate_floor),
	KUNIT_CASE(sroce_dcqcn_clamp_tgt_rate),
	KUNIT_CASE(sroce_dcqcn_monitor_period),
	KUNIT_CASE(sroce_dcqcn_first_cnp_rate),
	KUNIT_CASE(sroce_dcqcn_long_gap),
	KUNIT_CASE(sroce_dcqcn_bounded_catch_up),
	KUNIT_CASE(sroce_dcqcn_edges),
	KUNIT_CASE(sroce_dcqcn_params_check),
	KUNIT_CASE(sroce_dcqcn_tx_ns),
	{}
};

static struct kunit_suite sroce_dcqcn_suite = {
	.name = "sroce_dcqcn",
	.test_cases = sroce_dcqcn_cases,
};

kunit_test_suites(&sroce_dcqcn_suite);
