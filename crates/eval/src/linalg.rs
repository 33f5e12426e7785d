//! Dense linear algebra for the small systems of the maximum-likelihood fits.

/// The inverse of a square matrix (Gauss-Jordan with partial pivoting), or `None` when it is
/// singular to working precision.
pub(crate) fn invert(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let scale = m.iter().flatten().fold(0.0f64, |s, x| s.max(x.abs()));
    let mut a: Vec<Vec<f64>> = m
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..n).map(|j| f64::from(u8::from(i == j))));
            r
        })
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, pivot);
        let p = a[col][col];
        a[col].iter_mut().for_each(|x| *x /= p);
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            let factor = row[col];
            if r != col && factor != 0.0 {
                for (x, p) in row.iter_mut().zip(&pivot_row) {
                    *x -= factor * p;
                }
            }
        }
    }
    Some(a.into_iter().map(|row| row[n..].to_vec()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverts_and_refuses_singular() {
        let m = vec![vec![4.0, 7.0], vec![2.0, 6.0]];
        let inv = invert(&m).unwrap();
        let want = [[0.6, -0.7], [-0.2, 0.4]];
        for i in 0..2 {
            for j in 0..2 {
                assert!((inv[i][j] - want[i][j]).abs() < 1e-12);
            }
        }
        assert!(invert(&[vec![1.0, 2.0], vec![2.0, 4.0]]).is_none());
    }
}
