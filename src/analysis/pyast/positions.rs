//! Positions in the source: byte offsets of nodes ([`start_of`], [`end_of`]) and their
//! 1-based lines and character columns ([`LineIndex`]).

use rustpython_parser::ast::Ranged;

/// Byte offset → 1-based line and 1-based column counted in characters.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based (line, column) of byte `offset` in `source` (the text this index was built from).
    pub fn position(&self, source: &str, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts[line - 1];
        let end = offset.min(source.len());
        let col = source
            .get(start..end)
            .map_or(end - start, |s| s.chars().count())
            + 1;
        (line, col)
    }

    /// Byte offset where 1-based `line` starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        line.checked_sub(1)
            .and_then(|i| self.starts.get(i).copied())
    }
}

/// Start byte offset of any ranged node.
pub fn start_of<T: Ranged>(node: &T) -> usize {
    usize::from(node.start())
}

/// End byte offset of any ranged node.
pub fn end_of<T: Ranged>(node: &T) -> usize {
    usize::from(node.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_char_columns() {
        let src = "é = 1\nab = zz\n";
        let idx = LineIndex::new(src);
        let off = src.find("zz").expect("zz");
        assert_eq!(idx.position(src, off), (2, 6));
        let off = src.find('=').expect("=");
        assert_eq!(idx.position(src, off), (1, 3));
    }
}
