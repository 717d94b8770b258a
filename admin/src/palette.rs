//! The tab's colours: one set for the three kinds of visitor, one for the
//! lines by store. Both come from the Okabe–Ito palette (Okabe & Ito 2008,
//! "Color Universal Design"), made to stay apart for people with the common
//! colour-vision deficiencies: its blue and vermillion, and a grey darker
//! than its own, so that each stands out from a white card and from the
//! dark scheme's card by WCAG's 3:1 for graphics (its orange and light grey
//! do not on white). The tests below check the choice on both backgrounds,
//! simulating protanopia, deuteranopia and tritanopia.

/// A colour as sRGB bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Colour(pub u8, pub u8, pub u8);

impl Colour {
    /// `#rrggbb`, for CSS and SVG.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// People: Okabe–Ito blue.
pub const PEOPLE: Colour = Colour(0x00, 0x72, 0xB2);
/// Scanners and crawlers: Okabe–Ito vermillion.
pub const BOTS: Colour = Colour(0xD5, 0x5E, 0x00);
/// The site's own reads: a mid grey (WCAG's 4.5:1 on white, 3.6:1 on the dark card).
pub const SELF_READS: Colour = Colour(0x76, 0x76, 0x76);

/// The three kinds, bottom to top of the stack.
pub const KINDS: [Colour; 3] = [PEOPLE, BOTS, SELF_READS];

/// One colour per store line, in order; a fifth store starts again with a
/// different marker (see the chart), so lines never rely on colour alone.
pub const STORES: [Colour; 4] = [
    Colour(0x00, 0x00, 0x00),
    Colour(0x00, 0x72, 0xB2),
    Colour(0xD5, 0x5E, 0x00),
    Colour(0x76, 0x76, 0x76),
];

/// The background the charts are drawn on in the light scheme (a card).
pub const LIGHT_BACKGROUND: Colour = Colour(0xFF, 0xFF, 0xFF);
/// The same in the dark scheme (`prefers-color-scheme: dark`; the style
/// sheet's `--card` there).
pub const DARK_BACKGROUND: Colour = Colour(0x1B, 0x21, 0x26);

/// The store lines as the dark scheme draws them: the first, black on a
/// light card, is drawn near-white (the style sheet maps it); the others
/// stay.
pub const DARK_STORES: [Colour; 4] = [Colour(0xF2, 0xF2, 0xF2), STORES[1], STORES[2], STORES[3]];

/// The colour of the `index`-th store line.
pub fn store_colour(index: usize) -> Colour {
    STORES[index % STORES.len()]
}

#[cfg(test)]
mod tests {
    //! Each set is simulated as seen with protanopia, deuteranopia and
    //! tritanopia (the severity-1.0 matrices of Machado, Oliveira & Fernandes
    //! 2009, applied to linear RGB), and every pair must then differ by at
    //! least `MIN_DIFFERENCE` in CIEDE2000.
    //!
    //! Why 20: a CIEDE2000 difference near 2 is just noticeable side by side;
    //! chart colours must be told apart at a glance, in small areas and thin
    //! lines, and matched to a legend some distance away. Pairs that people
    //! name with different colour words sit above about 20 (the worst pair
    //! here, blue and grey under protanopia, is 20.7), while the usual red/green pair under
    //! deuteranopia falls below 10, so 20 fails the confusable sets and passes
    //! sets that stay distinct.
    use palette::color_difference::Ciede2000;
    use palette::{IntoColor, Lab, LinSrgb, Srgb};

    use super::*;

    const MIN_DIFFERENCE: f32 = 20.0;

    type Matrix = [[f32; 3]; 3];
    const NORMAL: Matrix = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    const PROTANOPIA: Matrix = [
        [0.152_286, 1.052_583, -0.204_868],
        [0.114_503, 0.786_281, 0.099_216],
        [-0.003_882, -0.048_116, 1.051_998],
    ];
    const DEUTERANOPIA: Matrix = [
        [0.367_322, 0.860_646, -0.227_968],
        [0.280_085, 0.672_501, 0.047_413],
        [-0.011_820, 0.042_940, 0.968_881],
    ];
    const TRITANOPIA: Matrix = [
        [1.255_528, -0.076_749, -0.178_779],
        [-0.078_411, 0.930_809, 0.147_602],
        [0.004_733, 0.691_367, 0.303_900],
    ];
    const VISIONS: [(&str, Matrix); 4] = [
        ("normal", NORMAL),
        ("protanopia", PROTANOPIA),
        ("deuteranopia", DEUTERANOPIA),
        ("tritanopia", TRITANOPIA),
    ];

    fn seen(colour: Colour, matrix: &Matrix) -> Lab {
        let linear: LinSrgb = Srgb::new(colour.0, colour.1, colour.2)
            .into_format::<f32>()
            .into_linear();
        let input = [linear.red, linear.green, linear.blue];
        let [red, green, blue] = matrix.map(|row| {
            (0..3)
                .map(|i| row[i] * input[i])
                .sum::<f32>()
                .clamp(0.0, 1.0)
        });
        LinSrgb::new(red, green, blue).into_color()
    }

    /// The smallest difference between two colours of `set` under any vision.
    fn worst_pair(set: &[Colour]) -> (f32, String) {
        let mut worst = (f32::MAX, String::new());
        for (vision, matrix) in &VISIONS {
            for (i, a) in set.iter().enumerate() {
                for b in &set[i + 1..] {
                    let difference = seen(*a, matrix).difference(seen(*b, matrix));
                    if difference < worst.0 {
                        worst = (difference, format!("{} / {} ({vision})", a.hex(), b.hex()));
                    }
                }
            }
        }
        worst
    }

    #[test]
    fn the_kinds_stay_apart_under_every_common_deficiency() {
        let (difference, pair) = worst_pair(&KINDS);
        eprintln!("kinds: worst pair {pair}, CIEDE2000 {difference:.1}");
        assert!(difference >= MIN_DIFFERENCE, "{pair}: {difference:.1}");
    }

    #[test]
    fn the_store_lines_stay_apart_under_every_common_deficiency() {
        let (difference, pair) = worst_pair(&STORES);
        eprintln!("stores: worst pair {pair}, CIEDE2000 {difference:.1}");
        assert!(difference >= MIN_DIFFERENCE, "{pair}: {difference:.1}");
    }

    #[test]
    fn the_check_fails_a_set_that_blurs_for_some() {
        // Red and green, as a traffic light: apart for most, one colour
        // under deuteranopia. The check must catch it.
        let (difference, pair) = worst_pair(&[Colour(0xD0, 0x30, 0x30), Colour(0x30, 0xA0, 0x30)]);
        eprintln!("red/green: worst pair {pair}, CIEDE2000 {difference:.1}");
        assert!(difference < MIN_DIFFERENCE, "{pair}: {difference:.1}");
    }

    /// WCAG 2's contrast ratio between two colours (1 to 21).
    fn contrast(a: Colour, b: Colour) -> f32 {
        let luminance = |c: Colour| {
            let linear: LinSrgb = Srgb::new(c.0, c.1, c.2).into_format::<f32>().into_linear();
            0.2126 * linear.red + 0.7152 * linear.green + 0.0722 * linear.blue
        };
        let (x, y) = (luminance(a) + 0.05, luminance(b) + 0.05);
        x.max(y) / x.min(y)
    }

    /// On each scheme's background, every chart colour stands out from the
    /// card by WCAG's 3:1 for graphics, and stays apart from the card and
    /// from the others under every common deficiency.
    #[test]
    fn every_colour_stands_out_on_both_backgrounds() {
        for (scheme, background, stores) in [
            ("light", LIGHT_BACKGROUND, STORES),
            ("dark", DARK_BACKGROUND, DARK_STORES),
        ] {
            for (set, colours) in [("kinds", KINDS.to_vec()), ("stores", stores.to_vec())] {
                for colour in &colours {
                    let ratio = contrast(*colour, background);
                    eprintln!(
                        "{scheme} {set}: {} on {} {ratio:.2}:1",
                        colour.hex(),
                        background.hex()
                    );
                    assert!(
                        ratio >= 3.0,
                        "{scheme}: {} on {}: {ratio:.2}:1",
                        colour.hex(),
                        background.hex()
                    );
                }
                let mut with_card = colours.clone();
                with_card.push(background);
                let (difference, pair) = worst_pair(&with_card);
                eprintln!(
                    "{scheme} {set} with the card: worst pair {pair}, CIEDE2000 {difference:.1}"
                );
                assert!(
                    difference >= MIN_DIFFERENCE,
                    "{scheme}: {pair}: {difference:.1}"
                );
            }
        }
    }

    #[test]
    fn the_contrast_check_fails_yellow_on_white() {
        assert!(contrast(Colour(0xF0, 0xE4, 0x42), LIGHT_BACKGROUND) < 3.0);
        assert!((contrast(Colour(0, 0, 0), LIGHT_BACKGROUND) - 21.0).abs() < 0.01);
    }

    #[test]
    fn a_colour_is_written_as_css_hex() {
        assert_eq!(PEOPLE.hex(), "#0072b2");
        assert_eq!(store_colour(5), STORES[1]);
    }
}
