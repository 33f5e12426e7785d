//! KataGo's rule names and rules objects (`GTP_Extensions.md` in its repository, `kata-get-rules`)
//! mapped onto hane's rule sets and back: for `kata-get-rules` and `kata-set-rules` over GTP
//! and for the `rules` of the JSON analysis engine's queries.

use hane_engine::rules::{KoRule, Scoring, Variant};
use hane_engine::Rules;
use serde_json::{json, Map, Value};

/// The hane rules string of a KataGo rules name (as KataGo and KaTrain spell them) where one
/// matches or is nearest, else `name` itself (a hane rules string, or nothing hane knows: its
/// parser says so). [`nearest`] says where the rules are only the nearest.
pub fn from_name(name: &str) -> String {
    let key = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    match key.as_str() {
        "tromp-taylor" | "tt" => "tromp-taylor",
        "chinese" | "cn" => "chinese",
        "chinese-ogs" | "chinese-kgs" => "chinese,ko=positional",
        "japanese" | "jp" | "korean" | "ko" => "japanese",
        "aga" | "bga" | "french" => "chinese,ko=positional",
        "new-zealand" | "nz" => "chinese,ko=positional,suicide=allow",
        "stone-scoring" => "chinese",
        _ => name,
    }
    .to_string()
}

/// What differs when [`from_name`] maps `name` onto the nearest hane rules, not the same.
pub fn nearest(name: &str) -> Option<&'static str> {
    let key = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    Some(match key.as_str() {
        "aga" | "bga" | "french" => {
            "played as Chinese rules with positional superko: hane has no situational superko, \
             pass stones or handicap bonus"
        }
        "new-zealand" | "nz" => {
            "played as Chinese rules with positional superko and suicide: hane has no situational superko"
        }
        "korean" | "ko" => "played as Japanese rules",
        "stone-scoring" => "played as Chinese area scoring: hane's Go has no group tax",
        _ => return None,
    })
}

hane_engine::message_error!(
    /// KataGo rules that hane does not have, or hane rules that KataGo does not.
    KataRulesError
);

/// The hane rules string of a KataGo rules object (`ko`, `scoring`, `tax`, `suicide`,
/// `hasButton`, `whiteHandicapBonus`; see `kata-get-rules`), when hane has those rules or
/// near ones: area scoring (stone scoring, `tax` ALL, is played as area scoring) or territory
/// scoring with seki taxed (docs/rules.md §2: its empty points count for nobody), simple or
/// positional ko, no button, no handicap bonus.
pub fn from_object(o: &Map<String, Value>) -> Result<String, KataRulesError> {
    let text =
        |key: &str, default: &str| o.get(key).and_then(Value::as_str).unwrap_or(default).to_ascii_uppercase();
    let base = match (text("scoring", "AREA").as_str(), text("tax", "NONE").as_str()) {
        ("AREA", "NONE") => "chinese",
        // Stone scoring (a tax on every group) is nearest to plain area scoring.
        ("AREA", "ALL") => "chinese",
        ("TERRITORY", "SEKI") => "japanese",
        (s, t) => return Err(KataRulesError(format!("no hane rule set scores {s} with tax {t}"))),
    };
    let ko = match text("ko", "SIMPLE").as_str() {
        "SIMPLE" => "simple",
        "POSITIONAL" => "positional",
        k => return Err(KataRulesError(format!("no hane rule set has ko {k}"))),
    };
    if o.get("hasButton").and_then(Value::as_bool).unwrap_or(false) {
        return Err(KataRulesError("no hane rule set has a button".into()));
    }
    let bonus =
        o.get("whiteHandicapBonus").map_or("0".to_string(), |v| v.as_str().unwrap_or("?").to_string());
    if bonus != "0" {
        return Err(KataRulesError(format!(
            "hane gives White no handicap bonus (whiteHandicapBonus \"{}\"); set the komi",
            bonus.escape_debug()
        )));
    }
    let suicide = if o.get("suicide").and_then(Value::as_bool).unwrap_or(false) { "allow" } else { "forbid" };
    Ok(format!("{base},ko={ko},suicide={suicide}"))
}

/// `rules` in the terms of KataGo's `kata-get-rules`, for the Go rule sets.
pub fn to_json(rules: &Rules) -> Result<String, KataRulesError> {
    if rules.variant != Variant::Go {
        return Err(KataRulesError(format!("{rules} has no KataGo equivalent")));
    }
    let ko = match rules.ko {
        KoRule::Positional => "POSITIONAL",
        _ => "SIMPLE",
    };
    let (scoring, tax) = match rules.scoring {
        // docs/rules.md §2: under territory scoring the empty points of a seki count for nobody.
        Scoring::Territory => ("TERRITORY", "SEKI"),
        Scoring::Stones => ("AREA", "ALL"),
        Scoring::Area => ("AREA", "NONE"),
    };
    Ok(json!({
        "ko": ko,
        "scoring": scoring,
        "tax": tax,
        "suicide": rules.suicide,
        "hasButton": false,
        "whiteHandicapBonus": "0",
    })
    .to_string())
}
