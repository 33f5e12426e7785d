//! SGF syntax: the main line of the first game tree as a list of nodes of properties, read
//! without recursion; escapes and soft line breaks are resolved here.

use super::SgfError;

/// One property value with the offset of its `[`.
pub(super) struct Value {
    pub(super) text: String,
    pub(super) pos: usize,
}

pub(super) struct Prop {
    pub(super) ident: String,
    pub(super) values: Vec<Value>,
    pub(super) pos: usize,
}

pub(super) struct Node {
    pub(super) props: Vec<Prop>,
    pub(super) pos: usize,
}

/// An open game tree while parsing.
struct Frame {
    main: bool,
    has_node: bool,
    has_child: bool,
    pos: usize,
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && b[*i].is_ascii_whitespace() {
        *i += 1;
    }
}

fn char_at(src: &str, i: usize) -> String {
    match src.get(i..).and_then(|s| s.chars().next()) {
        Some(c) => format!("'{}'", c.escape_debug()),
        None => "end of text".to_string(),
    }
}

/// Parses the first game tree of `src` without recursion and returns its main-line nodes.
pub(super) fn parse_main_line(src: &str) -> Result<Vec<Node>, SgfError> {
    let b = src.as_bytes();
    let mut i = 0;
    if b.starts_with(&[0xEF, 0xBB, 0xBF]) {
        i = 3;
    }
    skip_ws(b, &mut i);
    if i >= b.len() {
        return Err(SgfError::at(src, i, "empty input: expected '(;'"));
    }
    if b[i] != b'(' {
        return Err(SgfError::at(
            src,
            i,
            format!("expected '(' to start a game tree, found {}", char_at(src, i)),
        ));
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut nodes = Vec::new();
    loop {
        skip_ws(b, &mut i);
        if i >= b.len() {
            let open = stack.last().map_or(0, |f| f.pos);
            return Err(SgfError::at(src, open, "unexpected end of text: this '(' is never closed"));
        }
        match b[i] {
            b'(' => {
                let main = match stack.last_mut() {
                    None => true,
                    Some(top) => {
                        if !top.has_node {
                            return Err(SgfError::at(
                                src,
                                i,
                                "a game tree must start with a node (';') before variations",
                            ));
                        }
                        let main = top.main && !top.has_child;
                        top.has_child = true;
                        main
                    }
                };
                stack.push(Frame { main, has_node: false, has_child: false, pos: i });
                i += 1;
            }
            b')' => {
                let Some(top) = stack.pop() else {
                    return Err(SgfError::at(src, i, "unmatched ')'"));
                };
                if !top.has_node {
                    return Err(SgfError::at(src, top.pos, "empty game tree '()'"));
                }
                i += 1;
                if stack.is_empty() {
                    // Only the first game of a collection is read.
                    return Ok(nodes);
                }
            }
            b';' => {
                let Some(top) = stack.last_mut() else {
                    return Err(SgfError::at(src, i, "node outside a game tree"));
                };
                if top.has_child {
                    return Err(SgfError::at(
                        src,
                        i,
                        "a node after a variation: nodes must come before the variations",
                    ));
                }
                top.has_node = true;
                let main = top.main;
                let node_pos = i;
                i += 1;
                let props = parse_props(src, &mut i)?;
                if main {
                    nodes.push(Node { props, pos: node_pos });
                }
            }
            _ => {
                return Err(SgfError::at(
                    src,
                    i,
                    format!("expected '(', ';' or ')', found {}", char_at(src, i)),
                ))
            }
        }
    }
}

/// Parses the properties of one node, starting after its `;`.
fn parse_props(src: &str, i: &mut usize) -> Result<Vec<Prop>, SgfError> {
    let b = src.as_bytes();
    let mut props = Vec::new();
    loop {
        skip_ws(b, i);
        if *i >= b.len() || !b[*i].is_ascii_alphabetic() {
            return Ok(props);
        }
        let pos = *i;
        let mut ident = String::new();
        while *i < b.len() && b[*i].is_ascii_alphabetic() {
            if b[*i].is_ascii_uppercase() {
                ident.push(b[*i] as char);
            }
            *i += 1;
        }
        if ident.is_empty() {
            return Err(SgfError::at(src, pos, "property identifier without an uppercase letter"));
        }
        let mut values = Vec::new();
        loop {
            skip_ws(b, i);
            if *i >= b.len() || b[*i] != b'[' {
                break;
            }
            values.push(parse_value(src, i)?);
        }
        if values.is_empty() {
            return Err(SgfError::at(
                src,
                *i,
                format!("property {ident} needs a value '[...]', found {}", char_at(src, *i)),
            ));
        }
        props.push(Prop { ident, values, pos });
    }
}

/// Parses one `[...]` value starting at its `[`, handling escapes and soft line breaks.
fn parse_value(src: &str, i: &mut usize) -> Result<Value, SgfError> {
    let pos = *i;
    let mut text = String::new();
    let mut chars = src[pos + 1..].char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        match c {
            ']' => {
                *i = pos + 1 + k + 1;
                return Ok(Value { text, pos });
            }
            '\\' => match chars.next() {
                // A soft line break: backslash before a newline (any of \n, \r, \r\n, \n\r).
                Some((_, nl @ ('\n' | '\r'))) => {
                    let other = if nl == '\n' { '\r' } else { '\n' };
                    if chars.peek().is_some_and(|&(_, c2)| c2 == other) {
                        chars.next();
                    }
                }
                Some((_, c2)) => text.push(c2),
                None => break,
            },
            _ => text.push(c),
        }
    }
    Err(SgfError::at(src, pos, "unterminated property value: missing ']'"))
}
