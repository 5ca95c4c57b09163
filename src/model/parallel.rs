//! One ordered parallel map for the loaders' bulk work (parsing a dump's lines, finding the
//! rows' code blocks): items split into contiguous parts, one scoped thread each, answers in
//! the items' order whatever the number of threads, a worker's panic passed on.

/// Threads for a loader's bulk work: the cores, at most four. Asked once: the standard
/// library reads the cgroup's quota files on every call (60 ms of a 200,000-sample load).
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 4)
    })
}

/// `f` of every item, in order; on [`threads`] threads unless `parallel` is false (small
/// work, where spawning costs more than it saves) or there is one core.
pub fn map_in_order<T: Send, U: Send>(
    items: Vec<T>,
    parallel: bool,
    f: impl Fn(T) -> U + Sync,
) -> Vec<U> {
    map_in_order_with(items, parallel, || (), |_, item| f(item))
}

/// [`map_in_order`] where `f` carries a state along the items of its part (made by
/// `state` for each part): a memo of the last item, say, which a neighbour often repeats.
pub fn map_in_order_with<T: Send, U: Send, S>(
    items: Vec<T>,
    parallel: bool,
    state: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, T) -> U + Sync,
) -> Vec<U> {
    let threads = threads();
    let run = |part: Vec<T>| {
        let mut st = state();
        part.into_iter()
            .map(|item| f(&mut st, item))
            .collect::<Vec<U>>()
    };
    if !parallel || threads == 1 || items.len() < 2 {
        return run(items);
    }
    let per = items.len().div_ceil(threads);
    let mut parts: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut rest = items;
    while rest.len() > per {
        let tail = rest.split_off(per);
        parts.push(rest);
        rest = tail;
    }
    parts.push(rest);
    let run = &run;
    std::thread::scope(|scope| {
        let running: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || run(part)))
            .collect();
        running
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_come_in_the_items_order() {
        let items: Vec<u32> = (0..1001).collect();
        let serial = map_in_order(items.clone(), false, |x| x * 3);
        let parallel = map_in_order(items, true, |x| x * 3);
        assert_eq!(serial, parallel);
        assert_eq!(parallel.len(), 1001);
        assert_eq!(parallel[1000], 3000);
    }

    /// Each part carries its own state from its first item: a running count restarts at
    /// each part, so the counts say where the parts begin, and every item is seen once.
    #[test]
    fn each_part_carries_its_own_state() {
        let items: Vec<u32> = (0..1001).collect();
        let counted = map_in_order_with(
            items,
            true,
            || 0u32,
            |n, x| {
                *n += 1;
                (x, *n)
            },
        );
        assert_eq!(counted.len(), 1001);
        assert!(
            counted
                .iter()
                .enumerate()
                .all(|(i, (x, _))| *x as usize == i)
        );
        let starts = counted.iter().filter(|(_, n)| *n == 1).count();
        assert_eq!(starts, threads().min(1001));
        let serial = map_in_order_with(
            (0..5).collect(),
            false,
            || 0u32,
            |n, x: u32| {
                *n += x;
                *n
            },
        );
        assert_eq!(serial, vec![0, 1, 3, 6, 10]);
    }
}
