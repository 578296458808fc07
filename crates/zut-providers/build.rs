//! Turns the model catalog's prices into a table compiled into the crate
//! (`$OUT_DIR/catalog_prices.rs`), so a run that only needs its model's
//! price — every run, at start-up — finds it without parsing the 20 KB
//! catalog (docs/benchmarks.md, issue 18 start-up). A catalog this script
//! cannot read, or with a price that is not a finite non-negative number,
//! gives no table: the crate then falls back to parsing the catalog at run
//! time, which reports the problem.

use std::fmt::Write as _;

fn main() {
    println!("cargo:rerun-if-changed=catalog.json");
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let text = std::fs::read_to_string("catalog.json").unwrap_or_default();
    let table = match table(&text) {
        Some(rows) => format!("Some(&[\n{rows}])"),
        None => {
            println!("cargo:warning=catalog.json: no price table (parsed at run time instead)");
            "None".to_string()
        }
    };
    let code = format!(
        "/// `(provider, id, price)` of every catalog model, in file order\n\
         /// (made from catalog.json by build.rs); `None` when the file could\n\
         /// not be read at build time.\n\
         pub(crate) static PRICE_TABLE: Option<&[(&str, &str, Option<Prices>)]> = {table};\n"
    );
    if let Err(e) = std::fs::write(std::path::Path::new(&out).join("catalog_prices.rs"), code) {
        panic!("cannot write the price table into {out}: {e}");
    }
}

/// The table's rows, or `None` when the catalog is not as expected.
fn table(text: &str) -> Option<String> {
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut rows = String::new();
    for m in doc.get("models")?.as_array()? {
        let provider = m.get("provider")?.as_str()?;
        let id = m.get("id")?.as_str()?;
        let price = match m.get("price") {
            None | Some(serde_json::Value::Null) => "None".to_string(),
            Some(p) => {
                let p = p.as_object()?;
                let known = ["input", "output", "cache_read", "cache_write"];
                if p.keys().any(|k| !known.contains(&k.as_str())) {
                    return None;
                }
                let mut fields = String::new();
                for k in known {
                    let v = match p.get(k) {
                        None => 0.0,
                        Some(v) => v.as_f64()?,
                    };
                    if !v.is_finite() || v < 0.0 {
                        return None;
                    }
                    let _ = write!(fields, "{k}: {v:?}, ");
                }
                format!("Some(Prices {{ {fields}}})")
            }
        };
        let _ = writeln!(rows, "    ({provider:?}, {id:?}, {price}),");
    }
    Some(rows)
}
