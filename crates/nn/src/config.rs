//! What a network looks like: its [`NetShape`] (depth and widths, chosen by the user) and the
//! game it is built for ([`NetConfig`]: board size, action space, input sizes, taken from the
//! rule set and the feature encoder). Both are stored in every checkpoint.

use crate::NnError;
use hane_data::features::{GLOBALS, PLANES};
use hane_engine::range::{Allowed, Invalid};
use hane_engine::rules::SIZES;
use hane_engine::{Action, PolicyLayout, Rules};
use serde::{Deserialize, Serialize};

/// Most residual blocks: with [`MAX_CHANNELS`], a limit that keeps a damaged or hostile
/// checkpoint, or a typo in a config, from asking for an absurd allocation before any tensor
/// is looked at (KataGo's largest nets have 40 blocks of 256 channels).
pub const MAX_BLOCKS: usize = 64;
/// Most channels of any layer (see [`MAX_BLOCKS`]).
pub const MAX_CHANNELS: usize = 512;
/// What `blocks` and `pool_every` allow: none up to [`MAX_BLOCKS`].
pub const BLOCKS: Allowed<usize> = Allowed::closed(0, MAX_BLOCKS);
/// What every width allows: 1 up to [`MAX_CHANNELS`].
pub const CHANNELS: Allowed<usize> = Allowed::closed(1, MAX_CHANNELS);

/// Depth and widths of the network. The defaults are KataGo's smallest net (b6c96, paper
/// Table 5): 6 blocks of 96 channels, 32 pooled channels, policy head 32, value head 48.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetShape {
    /// Residual blocks in the trunk ([`BLOCKS`]).
    pub blocks: usize,
    /// Channels of the trunk ([`CHANNELS`], as every width below).
    pub channels: usize,
    /// Channels that a global pooling block pools into per-channel biases (KataGo's c_pool).
    pub pool_channels: usize,
    /// Channels of the policy head (KataGo's c_head).
    pub head_channels: usize,
    /// Channels of the value head (KataGo's c_val).
    pub value_channels: usize,
    /// Every `pool_every`-th block (the 3rd, 6th, ... for 3) is a global pooling block;
    /// 0 for none ([`BLOCKS`]).
    pub pool_every: usize,
}

impl Default for NetShape {
    fn default() -> NetShape {
        NetShape {
            blocks: 6,
            channels: 96,
            pool_channels: 32,
            head_channels: 32,
            value_channels: 48,
            pool_every: 3,
        }
    }
}

impl NetShape {
    /// A one-block net of 8 channels: for tests and smoke runs, where only loading and
    /// evaluating matter.
    pub fn tiny() -> NetShape {
        NetShape {
            blocks: 1,
            channels: 8,
            pool_channels: 4,
            head_channels: 4,
            value_channels: 4,
            pool_every: 1,
        }
    }

    /// Whether trunk block `i` (0-based) is a global pooling block.
    pub fn is_pool_block(&self, i: usize) -> bool {
        self.pool_every > 0 && i % self.pool_every == self.pool_every - 1
    }

    /// A short name in KataGo's style, e.g. `b6c96`.
    pub fn name(&self) -> String {
        format!("b{}c{}", self.blocks, self.channels)
    }

    /// Checks each field against what its doc comment allows; the message names the field,
    /// its value and what is allowed.
    pub fn validate(&self) -> Result<(), Invalid> {
        BLOCKS.check("blocks", self.blocks)?;
        CHANNELS.check("channels", self.channels)?;
        CHANNELS.check("pool_channels", self.pool_channels)?;
        CHANNELS.check("head_channels", self.head_channels)?;
        CHANNELS.check("value_channels", self.value_channels)?;
        BLOCKS.check("pool_every", self.pool_every)
    }
}

impl std::fmt::Display for NetShape {
    /// Every width in words: `6 blocks of 96 channels, pooling 32 every 3, heads 32 and 48`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let NetShape { blocks, channels, pool_channels, head_channels, value_channels, pool_every } = self;
        write!(
            f,
            "{blocks} blocks of {channels} channels, pooling {pool_channels} every {pool_every}, \
             heads {head_channels} and {value_channels}"
        )
    }
}

/// Everything needed to build a network: the game's sizes plus its [`NetShape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Board side.
    pub board_size: usize,
    /// Length of the policy ([`PolicyLayout`]): `S*S + 1` for Go and Loose, [`Action::space`]
    /// for Sligo.
    pub action_space: usize,
    /// Input feature planes ([`PLANES`]).
    pub planes: usize,
    /// Global input features ([`GLOBALS`]).
    pub globals: usize,
    /// Depth and widths.
    pub shape: NetShape,
}

impl NetConfig {
    /// The configuration for games under `rules` with the current feature encoder.
    pub fn new(rules: &Rules, shape: NetShape) -> NetConfig {
        NetConfig {
            board_size: usize::from(rules.size),
            action_space: PolicyLayout::of(rules).len(),
            planes: PLANES,
            globals: GLOBALS,
            shape,
        }
    }

    /// Checks that the sizes are consistent and within limits.
    pub fn validate(&self) -> Result<(), NnError> {
        let n = self.board_size;
        if !u8::try_from(n).is_ok_and(|n| SIZES.contains(n)) {
            return Err(NnError::Config(format!("board size {n} is not in {SIZES}")));
        }
        if self.action_space != n * n + 1 && self.action_space != Action::space(n) {
            return Err(NnError::Config(format!(
                "action space {} fits no rule set on {n}x{n} ({} or {})",
                self.action_space,
                n * n + 1,
                Action::space(n)
            )));
        }
        if self.planes == 0 || self.planes > 256 || self.globals > 256 {
            return Err(NnError::Config(format!(
                "input sizes {} planes, {} globals",
                self.planes, self.globals
            )));
        }
        self.shape.validate().map_err(|e| NnError::Config(format!("net shape: {e}")))
    }

    /// Whether the action space has Sligo's no-slide and slide actions.
    pub fn has_slides(&self) -> bool {
        self.action_space == Action::space(self.board_size)
    }

    /// Points per unit of the score head's output: scores are learned divided by the board
    /// side, so their targets are of order 1 on every board size.
    pub fn score_scale(&self) -> f64 {
        self.board_size as f64
    }
}

impl std::fmt::Display for NetConfig {
    /// The shape and the game's sizes: `6 blocks of 96 channels, ... on 7x7, 50 actions, ...`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let NetConfig { board_size: n, action_space, planes, globals, shape } = self;
        write!(f, "{shape} on {n}x{n}, {action_space} actions, {planes} planes, {globals} globals")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_follow_the_rule_set() {
        let go: Rules = "ttakji,size=7".parse().unwrap();
        let c = NetConfig::new(&go, NetShape::default());
        assert_eq!((c.board_size, c.action_space, c.has_slides()), (7, 50, false));
        c.validate().unwrap();
        let sligo: Rules = "sligo,size=5".parse().unwrap();
        let c = NetConfig::new(&sligo, NetShape::default());
        assert_eq!((c.action_space, c.has_slides()), (Action::space(5), true));
        let bad = NetConfig { action_space: 30, ..c };
        assert!(bad.validate().is_err());
        let huge = NetConfig { shape: NetShape { channels: 100_000, ..c.shape }, ..c };
        assert!(huge.validate().is_err());
        let komi: Rules = "ttakji,size=7,komi=5.5".parse().unwrap();
        assert!(go.same_game(&komi));
        assert!(!go.same_game(&"ttakji".parse().unwrap()));
        assert!(!go.same_game(&"chinese,size=7".parse().unwrap()));
        let s = NetShape::default();
        let pools: Vec<usize> = (0..s.blocks).filter(|&i| s.is_pool_block(i)).collect();
        assert_eq!(pools, [2, 5]);
    }
}
