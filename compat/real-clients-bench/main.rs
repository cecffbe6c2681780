//! What real crates' users call through rayon, timed: one program, built twice by
//! `compat/real-clients-bench.sh` (once on crates.io rayon, once with rayon patched onto forkjoin).
//!
//!   real-clients-bench WORKLOAD THREADS REPS [TREE]
//!
//! Prints one line: `WORKLOAD THREADS MEDIAN_SECONDS CHECKSUM`. The checksum must be equal in both
//! builds (the script checks it).

use std::hint::black_box;
use std::time::{Duration, Instant};

use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: real-clients-bench WORKLOAD THREADS REPS [TREE]");
        std::process::exit(2);
    }
    let workload = args[1].as_str();
    let threads: usize = args[2].parse().expect("THREADS is a number");
    let reps: usize = args[3].parse().expect("REPS is a number");
    let tree = args.get(4).cloned().unwrap_or_default();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .expect("the global pool is built once");

    let run: Box<dyn FnMut() -> (Duration, u64)> = match workload {
        "ndarray-zip" => ndarray_zip(),
        "ndarray-map-inplace" => ndarray_map_inplace(),
        "ndarray-axis-sum" => ndarray_axis_sum(),
        "hashbrown-reduce" => hashbrown_reduce(),
        "hashbrown-extend" => extend_fresh::<hashbrown::HashMap<u64, u64>>(|m| {
            m.len() as u64 + m.values().sum::<u64>()
        }),
        "dashmap-sum" => dashmap_sum(),
        "dashmap-extend" => extend_fresh::<dashmap::DashMap<u64, u64>>(|m| m.len() as u64),
        "indexmap-sum" => indexmap_sum(),
        "indexmap-extend" => extend_fresh::<indexmap::IndexMap<u64, u64>>(|m| {
            m.len() as u64 + m.values().sum::<u64>()
        }),
        "indexmap-sort-keys" => indexmap_sort_keys(),
        "jwalk" => jwalk_walk(tree, false),
        "jwalk-sorted" => jwalk_walk(tree, true),
        "blake3" => blake3_hash(),
        "image-from-par-fn" => image_from_par_fn(),
        "image-pixels-mut" => image_pixels_mut(),
        "faer-matmul" => faer_matmul(threads),
        other => {
            eprintln!("unknown workload {other}");
            std::process::exit(2);
        }
    };
    let mut run = run;
    let mut times = Vec::with_capacity(reps);
    let mut checksum = None;
    for _ in 0..reps {
        let (t, sum) = run();
        if *checksum.get_or_insert(sum) != sum {
            eprintln!("{workload}: results differ between repetitions");
            std::process::exit(1);
        }
        times.push(t);
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "{workload} {threads} {:.6} {}",
        median.as_secs_f64(),
        checksum.unwrap_or(0)
    );
}

fn timed<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let r = black_box(f());
    (start.elapsed(), r)
}

/// Rounds a float sum to a checksum that does not depend on the order of additions.
fn approx(x: f64) -> u64 {
    (x * 1e-3).round() as u64
}

const SIDE: usize = 4096;

fn ndarray_zip() -> Box<dyn FnMut() -> (Duration, u64)> {
    use ndarray::{Array2, Zip};
    let b = Array2::from_shape_fn((SIDE, SIDE), |(i, j)| ((i * 7 + j * 3) % 101) as f64);
    let mut a = Array2::<f64>::zeros((SIDE, SIDE));
    Box::new(move || {
        a.fill(1.0);
        let (t, ()) = timed(|| {
            Zip::from(&mut a)
                .and(&b)
                .par_for_each(|x, &y| *x = (*x * 2.0 + y).sqrt())
        });
        (t, approx(a.sum()))
    })
}

fn ndarray_map_inplace() -> Box<dyn FnMut() -> (Duration, u64)> {
    use ndarray::Array2;
    let mut a = Array2::<f64>::zeros((SIDE, SIDE));
    Box::new(move || {
        a.fill(2.0);
        let (t, ()) = timed(|| a.par_map_inplace(|x| *x = x.sqrt() * 3.0 + 1.0));
        (t, approx(a.sum()))
    })
}

fn ndarray_axis_sum() -> Box<dyn FnMut() -> (Duration, u64)> {
    use ndarray::{Array2, Axis};
    let a = Array2::from_shape_fn((SIDE, SIDE), |(i, j)| ((i + j) % 13) as f64);
    Box::new(move || {
        let (t, sums) = timed(|| {
            a.axis_iter(Axis(0))
                .into_par_iter()
                .map(|row| row.sum())
                .collect::<Vec<f64>>()
        });
        (t, approx(sums.iter().sum()))
    })
}

fn hashbrown_reduce() -> Box<dyn FnMut() -> (Duration, u64)> {
    let map: hashbrown::HashMap<u64, u64> = (0..10_000_000u64).map(|i| (i, i * 3)).collect();
    Box::new(move || {
        timed(|| {
            map.par_iter()
                .map(|(k, v)| k ^ v)
                .reduce(|| 0, |a, b| a.wrapping_add(b))
        })
    })
}

/// `par_extend` of a fresh map with the pairs `(i, i)` of `0..2·10^6`; `check` makes the checksum.
fn extend_fresh<M>(check: fn(&M) -> u64) -> Box<dyn FnMut() -> (Duration, u64)>
where
    M: Default + ParallelExtend<(u64, u64)> + 'static,
{
    Box::new(move || {
        let mut map = M::default();
        let (t, ()) = timed(|| map.par_extend((0..2_000_000u64).into_par_iter().map(|i| (i, i))));
        (t, check(&map))
    })
}

fn dashmap_sum() -> Box<dyn FnMut() -> (Duration, u64)> {
    let map: dashmap::DashMap<u64, u64> = (0..2_000_000u64).map(|i| (i, i)).collect();
    Box::new(move || timed(|| map.par_iter().map(|e| *e.value()).sum::<u64>()))
}

fn indexmap_sum() -> Box<dyn FnMut() -> (Duration, u64)> {
    let map: indexmap::IndexMap<u64, u64> = (0..10_000_000u64).map(|i| (i, i)).collect();
    Box::new(move || timed(|| map.par_values().map(|v| v ^ 5).sum::<u64>()))
}

fn indexmap_sort_keys() -> Box<dyn FnMut() -> (Duration, u64)> {
    let base: indexmap::IndexMap<u64, u64> = (0..2_000_000u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i))
        .collect();
    Box::new(move || {
        let mut map = base.clone();
        let (t, ()) = timed(|| map.par_sort_keys());
        let first = *map.get_index(0).unwrap().1;
        (t, first + *map.get_index(map.len() / 2).unwrap().1)
    })
}

fn jwalk_walk(tree: String, sorted: bool) -> Box<dyn FnMut() -> (Duration, u64)> {
    assert!(!tree.is_empty(), "jwalk needs a TREE directory");
    Box::new(move || {
        timed(|| {
            let walk = jwalk::WalkDir::new(&tree).sort(sorted);
            let mut n = 0u64;
            let mut bytes = 0u64;
            for entry in walk {
                let entry = entry.expect("a readable entry");
                n += 1;
                bytes += entry.file_name().len() as u64;
            }
            n * 1_000_000 + bytes
        })
    })
}

fn blake3_hash() -> Box<dyn FnMut() -> (Duration, u64)> {
    let data: Vec<u8> = (0..256usize << 20).map(|i| (i * 31 % 251) as u8).collect();
    Box::new(move || {
        timed(|| {
            let mut hasher = blake3::Hasher::new();
            hasher.update_rayon(&data);
            let hash = hasher.finalize();
            u64::from_le_bytes(hash.as_bytes()[..8].try_into().unwrap())
        })
    })
}

const IMAGE_SIDE: u32 = 4000;

fn image_checksum(img: &image::RgbImage) -> u64 {
    img.as_raw().iter().map(|&b| b as u64).sum()
}

fn image_from_par_fn() -> Box<dyn FnMut() -> (Duration, u64)> {
    Box::new(|| {
        let (t, img) = timed(|| {
            image::RgbImage::from_par_fn(IMAGE_SIDE, IMAGE_SIDE, |x, y| {
                image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x ^ y) % 239) as u8])
            })
        });
        (t, image_checksum(&img))
    })
}

fn image_pixels_mut() -> Box<dyn FnMut() -> (Duration, u64)> {
    let base = image::RgbImage::from_fn(IMAGE_SIDE, IMAGE_SIDE, |x, y| {
        image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x + y) % 239) as u8])
    });
    Box::new(move || {
        let mut img = base.clone();
        let (t, ()) = timed(|| {
            img.par_pixels_mut().for_each(|p| {
                let [r, g, b] = p.0;
                p.0 = [g.saturating_add(r / 2), b, r ^ g];
            })
        });
        (t, image_checksum(&img))
    })
}

fn faer_matmul(threads: usize) -> Box<dyn FnMut() -> (Duration, u64)> {
    const N: usize = 1024;
    faer::set_global_parallelism(faer::Par::rayon(threads));
    let a = faer::Mat::<f64>::from_fn(N, N, |i, j| ((i * 3 + j * 7) % 17) as f64);
    let b = faer::Mat::<f64>::from_fn(N, N, |i, j| ((i * 5 + j) % 13) as f64);
    Box::new(move || {
        let (t, c) = timed(|| &a * &b);
        // Small integers: every product and sum is exact, whatever the order.
        let sum: f64 = (0..N).map(|i| c[(i, i)] + c[(i, N - 1 - i)]).sum();
        (t, sum as u64)
    })
}
