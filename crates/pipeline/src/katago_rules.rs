//! KataGo's rule names and rules objects (`GTP_Extensions.md` in its repository, `kata-get-rules`)
//! mapped onto hane's rule sets and back: for `kata-get-rules` and `kata-set-rules` over GTP
//! and for the `rules` of the JSON analysis engine's queries.

use hane_engine::rules::{KoRule, Scoring, Variant};
use hane_engine::Rules;
use serde_json::{json, Map, Value};

/// The hane rules string of a KataGo rules name where one matches, else `name` itself (a
/// hane rules string, or nothing hane knows: its parser says so).
pub fn from_name(name: &str) -> String {
    match name.to_ascii_lowercase().as_str() {
        "tromp-taylor" | "tromp_taylor" => "tromp-taylor",
        "chinese" => "chinese",
        "chinese-ogs" | "chinese-kgs" | "chinese_ogs" | "chinese_kgs" => "chinese,ko=positional",
        "japanese" | "korean" => "japanese",
        "stone-scoring" | "stone_scoring" => "chinese,scoring=stones",
        _ => name,
    }
    .to_string()
}

/// The hane rules string of a KataGo rules object (`ko`, `scoring`, `tax`, `suicide`,
/// `hasButton`, `whiteHandicapBonus`; see `kata-get-rules`), when hane has those rules: area
/// scoring (or stone scoring, `tax` ALL) or territory scoring with seki taxed (docs/rules.md §2: its
/// empty points count for nobody), simple or positional ko, no button, no handicap bonus.
pub fn from_object(o: &Map<String, Value>) -> Result<String, String> {
    let text =
        |key: &str, default: &str| o.get(key).and_then(Value::as_str).unwrap_or(default).to_ascii_uppercase();
    let base = match (text("scoring", "AREA").as_str(), text("tax", "NONE").as_str()) {
        ("AREA", "NONE") => "chinese",
        ("AREA", "ALL") => "chinese,scoring=stones",
        ("TERRITORY", "SEKI") => "japanese",
        (s, t) => return Err(format!("no hane rule set scores {s} with tax {t}")),
    };
    let ko = match text("ko", "SIMPLE").as_str() {
        "SIMPLE" => "simple",
        "POSITIONAL" => "positional",
        k => return Err(format!("no hane rule set has ko {k}")),
    };
    if o.get("hasButton").and_then(Value::as_bool).unwrap_or(false) {
        return Err("no hane rule set has a button".into());
    }
    let bonus =
        o.get("whiteHandicapBonus").map_or("0".to_string(), |v| v.as_str().unwrap_or("?").to_string());
    if bonus != "0" {
        return Err(format!(
            "hane gives White no handicap bonus (whiteHandicapBonus {bonus:?}); set the komi"
        ));
    }
    let suicide = if o.get("suicide").and_then(Value::as_bool).unwrap_or(false) { "allow" } else { "forbid" };
    Ok(format!("{base},ko={ko},suicide={suicide}"))
}

/// `rules` in the terms of KataGo's `kata-get-rules`, for the Go rule sets.
pub fn to_json(rules: &Rules) -> Result<String, String> {
    if rules.variant != Variant::Go {
        return Err(format!("{rules} has no KataGo equivalent"));
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
