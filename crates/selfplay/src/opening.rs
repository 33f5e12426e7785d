//! Openings from the raw policy (KataGo paper, appendix D): each game starts with `r` moves
//! sampled from the evaluator's prior, `r ~ Exp(mean)` rounded to an integer. Those moves
//! are neither searched nor recorded; the game and its rows start from the position they
//! reach. Self-play otherwise replays the net's favourite lines, and a reply it never plays
//! (a cut that GNU Go finds at once) is never answered in its data.

use hane_engine::rng::Rng;

/// The number of raw-policy moves of one game: an exponential draw of mean `mean`, rounded
/// (0 when `mean` is 0).
pub fn length(mean: f32, rng: &mut Rng) -> u32 {
    if mean <= 0.0 {
        return 0;
    }
    let u = 1.0 - rng.unit(); // in (0, 1]
    (-f64::from(mean) * u.ln()).round() as u32
}

/// An index drawn in proportion to `priors` (the first one when they sum to zero).
pub fn sample(priors: &[f32], rng: &mut Rng) -> usize {
    let total: f64 = priors.iter().map(|&p| f64::from(p.max(0.0))).sum();
    if total <= 0.0 {
        return 0;
    }
    let mut x = rng.unit() * total;
    for (i, &p) in priors.iter().enumerate() {
        x -= f64::from(p.max(0.0));
        if x < 0.0 {
            return i;
        }
    }
    priors.iter().rposition(|&p| p > 0.0).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_exponential_with_the_mean_asked_for() {
        let mut rng = Rng::new(7);
        assert_eq!(length(0.0, &mut rng), 0);
        let n = 20_000;
        let draws: Vec<u32> = (0..n).map(|_| length(2.0, &mut rng)).collect();
        let mean = draws.iter().map(|&d| f64::from(d)).sum::<f64>() / f64::from(n);
        // Rounding an Exp(2) draw keeps its mean within a few hundredths of 2.
        assert!((mean - 2.0).abs() < 0.08, "{mean}");
        // P(r = 0) = P(X < 0.5) = 1 - exp(-1/4).
        let zeros = draws.iter().filter(|&&d| d == 0).count() as f64 / f64::from(n);
        assert!((zeros - (1.0 - (-0.25f64).exp())).abs() < 0.015, "{zeros}");
    }

    #[test]
    fn moves_follow_the_priors() {
        let mut rng = Rng::new(3);
        let priors = [0.0, 0.7, 0.1, 0.2];
        let mut counts = [0u32; 4];
        for _ in 0..20_000 {
            counts[sample(&priors, &mut rng)] += 1;
        }
        assert_eq!(counts[0], 0, "a zero prior is never drawn");
        for (c, p) in counts.iter().zip(priors) {
            assert!((f64::from(*c) / 20_000.0 - f64::from(p)).abs() < 0.015, "{counts:?}");
        }
        assert_eq!(sample(&[0.0, 0.0], &mut rng), 0);
    }
}
