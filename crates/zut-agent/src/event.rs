//! The agent's events ([`AgentEvent`], defined in `zut-types` so front
//! ends need not depend on this crate) and their construction from
//! extension UI frames ([`UiEvents`], in `zut-control`) and provider usage ([`usage_counts`]).

pub use zut_control::UiEvents;
pub use zut_types::event::*;

/// Counts of one provider usage report, priced with `prices` (the model's,
/// from models.json or the catalog; `None`: cost 0, `cost_known` false).
pub fn usage_counts(
    u: &zut_providers::Usage,
    prices: Option<zut_providers::Prices>,
) -> UsageCounts {
    UsageCounts {
        input: u.input,
        output: u.output,
        reasoning: u.reasoning,
        cache_read: u.cache_read,
        cache_write: u.cache_write,
        cache_measured_prompt: u.input + u.cache_read + u.cache_write,
        cache_measured_read: u.cache_read,
        cost_usd: prices.map_or(0.0, |p| p.cost(u)),
        cost_known: prices.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use zut_ext_host::{UiEvent, UiKind};

    #[test]
    fn shapes_match_rpc_table() {
        let e = AgentEvent::TurnEnd {
            stop: "error",
            error: Some("no".into()),
        };
        assert_eq!(
            e.to_json(),
            r#"{"type":"turn_end","stop":"error","error":"no"}"#
        );
        assert_eq!(AgentEvent::Done.to_json(), r#"{"type":"done"}"#);
        let delta = AgentEvent::TextDelta {
            delta: "h\u{e9}\"l\\lo\n\t\u{1}".into(),
        };
        let plain = AgentEvent::TextDelta {
            delta: "plain \u{e9}\u{1f600} /\u{7f}~".into(),
        };
        let empty = AgentEvent::TextDelta { delta: "".into() };
        for ev in [&e, &delta, &plain, &empty, &AgentEvent::Done] {
            let mut line = b"x".to_vec();
            ev.write_json(&mut line);
            assert_eq!(line, format!("x{}", ev.to_json()).into_bytes());
        }
        let u = AgentEvent::Usage(UsageEvent {
            this: UsageCounts::default(),
            cumulative: UsageCounts::default(),
        });
        let v: Value = serde_json::from_str(&u.to_json()).unwrap();
        assert_eq!(v["type"], "usage");
        assert_eq!(v["reasoning"], Value::Null);
        assert_eq!(v["cumulative"]["input"], 0);
        let w = AgentEvent::from_ui(&UiEvent {
            extension: "x".into(),
            kind: UiKind::Widget {
                id: "w".into(),
                position: "".into(),
                title: "".into(),
                lines: vec![],
            },
        })
        .unwrap();
        assert_eq!(
            w.to_json(),
            r#"{"type":"ext_widget","extension":"x","id":"w","position":"","title":"","lines":[]}"#
        );
    }
}
