"""C templates of the generated code that do not depend on the circuit: the bit-sliced popcount
(GroupSum) and the binarisation, batch and classification drivers. ``PFX`` is replaced by the
symbol prefix (``wl``), ``UPF`` by its upper-case form."""

from string import Template

POPCOUNT = r"""
/* Bit-sliced popcount of n words into UPF_COUNT_BITS words (LSB first): a carry-save tree
 * built on line. Up to two words wait at each weight j; a third one triggers a full adder
 * (sum stays at j, carry moves to j + 1). A final ripple-carry pass adds what is left. */
static void PFX_popcount(const PFX_word *x, long n, PFX_word *cnt) {
    PFX_word p0[UPF_COUNT_BITS + 1], p1[UPF_COUNT_BITS + 1];
    int k[UPF_COUNT_BITS + 1];
    for (int j = 0; j <= UPF_COUNT_BITS; j++) { k[j] = 0; p0[j] = WL_ZERO; p1[j] = WL_ZERO; }
    for (long i = 0; i < n; i++) {
        PFX_word v = x[i];
        int j = 0;
        for (;;) {
            if (k[j] == 0) { p0[j] = v; k[j] = 1; break; }
            if (k[j] == 1) { p1[j] = v; k[j] = 2; break; }
            PFX_word a = p0[j], b = p1[j], ab = a ^ b;
            p0[j] = ab ^ v;
            k[j] = 1;
            v = (a & b) | (v & ab);
            j++;
        }
    }
    PFX_word carry = WL_ZERO;
    for (int j = 0; j < UPF_COUNT_BITS; j++) {
        PFX_word a = k[j] > 0 ? p0[j] : WL_ZERO, b = k[j] > 1 ? p1[j] : WL_ZERO, ab = a ^ b;
        cnt[j] = ab ^ carry;
        carry = (a & b) | (carry & ab);
    }
}
"""


# The float and 8-bit input paths share their code: one template each for binarisation and
# classification, filled in with the input type, the names and the comparison of each path.
_BINARIZE = Template(r"""void PFX_binarize$suffix(const $type *$arr, long n, PFX_word *in) {
    memset(PFX_bin_buf, 0, sizeof PFX_bin_buf);
    for (long s = 0; s < n; s++) {
        const $type *$row = $arr + s * UPF_NUM_FEATURES;
        long lane = s / UPF_WORD_BITS;
        PFX_lane bit = (PFX_lane)((PFX_lane)1 << (s % UPF_WORD_BITS));
        for (long i = 0; i < UPF_NUM_INPUTS; i++)
            PFX_bin_buf[i][lane] |= (PFX_lane)(bit & (PFX_lane)(0 - (PFX_lane)(
                $test)));
    }
    memcpy(in, PFX_bin_buf, sizeof PFX_bin_buf);
}""")

_CLASSIFY = Template(
    r"""long PFX_classify$suffix(const $type *$arr, long n, int32_t *pred, int32_t *counts) {
    for (long s0 = 0; s0 < n; s0 += UPF_SAMPLES_PER_WORD) {
        long m = n - s0 < UPF_SAMPLES_PER_WORD ? n - s0 : UPF_SAMPLES_PER_WORD;
        PFX_binarize$suffix($arr + s0 * UPF_NUM_FEATURES, m, PFX_in_buf);
        PFX_eval(PFX_in_buf, PFX_out_buf, PFX_cnt_buf, PFX_work_buf);
        PFX_decode(s0, m, pred, counts);
    }
    return n;
}"""
)

# 8-bit pixels, compare-and-pack on words: one lane (W samples) at a time, the lane's pixels are
# transposed to feature-major bytes (cols[f][s]; SSE2 16 x 16 tiles), then each input's W bits
# come from W byte comparisons with its pixel threshold, packed by the SIMD movemask.
PIXELS = r"""
/* 8-bit pixels: bit i = pixel[i / T] >= PFX_pmin[i], exactly the float comparison above for
 * inputs preprocessed as float32(pixel) / float32(UPF_PIXEL_SCALE). PFX_pmin is 256 (never) for
 * inputs the circuit does not read: their bits are 0. */
#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif
static uint8_t PFX_cols[UPF_NUM_FEATURES > 0 ? UPF_NUM_FEATURES : 1][UPF_WORD_BITS];

/* Bit s = col[s] >= p for the UPF_WORD_BITS samples of one lane. */
static PFX_lane PFX_ge_mask(const uint8_t *col, uint16_t p) {
    PFX_lane m = 0;
    if (p > 255) return m;
#if defined(__AVX2__)
    if (UPF_WORD_BITS % 32 == 0) {
        const __m256i pv = _mm256_set1_epi8((char)p);
        for (int k = 0; k < UPF_WORD_BITS / 32; k++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(col + 32 * k));
            uint32_t b = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpeq_epi8(_mm256_max_epu8(v, pv), v));
            m |= (PFX_lane)((uint64_t)b << (32 * k));
        }
        return m;
    }
#endif
#if defined(__SSE2__)
    if (UPF_WORD_BITS % 16 == 0) {
        const __m128i pv = _mm_set1_epi8((char)p);
        for (int k = 0; k < UPF_WORD_BITS / 16; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(col + 16 * k));
            uint32_t b = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, pv), v));
            m |= (PFX_lane)((uint64_t)b << (16 * k));
        }
        return m;
    }
#endif
    for (int s = 0; s < UPF_WORD_BITS; s++) m |= (PFX_lane)((PFX_lane)(col[s] >= p) << s);
    return m;
}

#if defined(__SSE2__)
/* 16 x 16 byte transpose: row r = src + r * stride -> column r of dst + k * dstride (k < 16),
 * four rounds of interleaving (8, 16, 32, 64-bit). */
static void PFX_t16(const uint8_t *src, long stride, uint8_t *dst, long dstride) {
    __m128i r[16], a[16], b[16], c[16];
    for (int i = 0; i < 16; i++) r[i] = _mm_loadu_si128((const __m128i *)(src + i * stride));
    for (int k = 0; k < 8; k++) {
        a[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
        a[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
    }
    for (int j = 0; j < 4; j++)
        for (int h = 0; h < 2; h++) {
            b[4 * j + 2 * h] = _mm_unpacklo_epi16(a[4 * j + h], a[4 * j + 2 + h]);
            b[4 * j + 2 * h + 1] = _mm_unpackhi_epi16(a[4 * j + h], a[4 * j + 2 + h]);
        }
    for (int i = 0; i < 2; i++)
        for (int q = 0; q < 4; q++) {
            c[8 * i + 2 * q] = _mm_unpacklo_epi32(b[8 * i + q], b[8 * i + 4 + q]);
            c[8 * i + 2 * q + 1] = _mm_unpackhi_epi32(b[8 * i + q], b[8 * i + 4 + q]);
        }
    for (int q = 0; q < 8; q++) {
        _mm_storeu_si128((__m128i *)(dst + (2 * q) * dstride), _mm_unpacklo_epi64(c[q], c[8 + q]));
        _mm_storeu_si128((__m128i *)(dst + (2 * q + 1) * dstride),
                         _mm_unpackhi_epi64(c[q], c[8 + q]));
    }
}
#endif

/* PFX_cols[f][s] = pixel f of sample s0 + s (s < m): 16 x 16 tiles where the CPU has SSE2 and
 * the lane is full, then blocks of 32 features (the block's columns stay in the L1 cache). */
static void PFX_transpose(const uint8_t *px, long s0, long m) {
    long f = 0;
#if defined(__SSE2__)
    if (m == UPF_WORD_BITS && UPF_WORD_BITS % 16 == 0)
        for (; f + 16 <= UPF_NUM_FEATURES; f += 16)
            for (long s = 0; s < UPF_WORD_BITS; s += 16)
                PFX_t16(px + (s0 + s) * UPF_NUM_FEATURES + f, UPF_NUM_FEATURES,
                        &PFX_cols[f][s], UPF_WORD_BITS);
#endif
    for (long f0 = f; f0 < UPF_NUM_FEATURES; f0 += 32) {
        long f1 = f0 + 32 < UPF_NUM_FEATURES ? f0 + 32 : UPF_NUM_FEATURES;
        for (long s = 0; s < m; s++) {
            const uint8_t *ps = px + (s0 + s) * UPF_NUM_FEATURES;
            for (long g = f0; g < f1; g++) PFX_cols[g][s] = ps[g];
        }
    }
}

void PFX_binarize_u8(const uint8_t *px, long n, PFX_word *in) {
    for (long l = 0; l < UPF_LANES; l++) {
        long s0 = l * UPF_WORD_BITS, m = n - s0 < UPF_WORD_BITS ? n - s0 : UPF_WORD_BITS;
        if (m < 0) m = 0;
        PFX_transpose(px, s0, m);
        PFX_lane keep = m >= UPF_WORD_BITS ? (PFX_lane)~(PFX_lane)0
                                           : (PFX_lane)(((PFX_lane)1 << m) - 1);
        for (long i = 0; i < UPF_NUM_INPUTS; i++)
            PFX_bin_buf[i][l] = PFX_ge_mask(PFX_cols[i / UPF_THERMOMETER], PFX_pmin[i]) & keep;
    }
    memcpy(in, PFX_bin_buf, sizeof PFX_bin_buf);
}"""

_FLOAT = {
    "suffix": "",
    "type": "double",
    "arr": "x",
    "row": "xs",
    "test": "xs[i / UPF_THERMOMETER] > PFX_thr[i]",
}
_PIXELS = {
    "suffix": "_u8",
    "type": "uint8_t",
    "arr": "px",
    "row": "ps",
    "test": "(uint16_t)ps[i / UPF_THERMOMETER] >= PFX_pmin[i]",
}

DRIVERS = (
    r"""
static PFX_word PFX_work_buf[UPF_WORK_WORDS];
static PFX_word PFX_in_buf[UPF_NUM_INPUTS > 0 ? UPF_NUM_INPUTS : 1];
static PFX_word PFX_out_buf[UPF_NUM_OUTPUTS > 0 ? UPF_NUM_OUTPUTS : 1];
static PFX_word PFX_cnt_buf[UPF_NUM_CLASSES * UPF_COUNT_BITS];

static PFX_lane PFX_bin_buf[UPF_NUM_INPUTS > 0 ? UPF_NUM_INPUTS : 1][UPF_LANES];

/* Sample-major: each sample's features are read in order (x is row-major (n, F)). */
"""
    + _BINARIZE.substitute(_FLOAT)
    + r"""

#ifdef UPF_HAVE_PIXELS
"""
    + PIXELS
    + r"""
#endif

long PFX_eval_batch(const PFX_word *in, long nwords, PFX_word *out, PFX_word *counts) {
    for (long w = 0; w < nwords; w++) {
        for (long i = 0; i < UPF_NUM_INPUTS; i++) PFX_in_buf[i] = in[i * nwords + w];
        PFX_eval(PFX_in_buf, PFX_out_buf, PFX_cnt_buf, PFX_work_buf);
        for (long k = 0; k < UPF_NUM_OUTPUTS; k++) out[k * nwords + w] = PFX_out_buf[k];
        for (long k = 0; k < UPF_NUM_CLASSES * UPF_COUNT_BITS; k++)
            counts[k * nwords + w] = PFX_cnt_buf[k];
    }
    return nwords;
}

/* Counts and argmax (ties to the lowest class) of the m samples in PFX_cnt_buf. */
static void PFX_decode(long s0, long m, int32_t *pred, int32_t *counts) {
    PFX_lane lanes[UPF_NUM_CLASSES * UPF_COUNT_BITS][UPF_LANES];
    memcpy(lanes, PFX_cnt_buf, sizeof lanes);
    for (long s = 0; s < m; s++) {
        long lane = s / UPF_WORD_BITS, bit = s % UPF_WORD_BITS;
        int32_t best = -1, arg = 0;
        for (long k = 0; k < UPF_NUM_CLASSES; k++) {
            int32_t v = 0;
            for (long j = 0; j < UPF_COUNT_BITS; j++)
                v |= (int32_t)((lanes[k * UPF_COUNT_BITS + j][lane] >> bit) & 1u) << j;
            if (counts) counts[(s0 + s) * UPF_NUM_CLASSES + k] = v;
            if (v > best) { best = v; arg = (int32_t)k; }
        }
        pred[s0 + s] = arg;
    }
}

"""
    + _CLASSIFY.substitute(_FLOAT)
    + "\n\n#ifdef UPF_HAVE_PIXELS\n"
    + _CLASSIFY.substitute(_PIXELS)
    + "\n#endif\n"
)
