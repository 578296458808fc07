//! Prints the Markdown of an HTML file: `cargo run -p zut-web --example
//! to_markdown -- page.html [base-url]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: to_markdown FILE.html [BASE_URL]");
        std::process::exit(2);
    };
    let html = match std::fs::read(&path) {
        Ok(b) => zut_web::decode::text(&b, None, true),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let base = args.next().and_then(|b| url::Url::parse(&b).ok());
    let c = zut_web::html::to_markdown(&html, base.as_ref());
    if let Some(t) = &c.title {
        println!("Title: {t}");
    }
    println!("{}", c.markdown);
    for (i, l) in c.links.iter().enumerate() {
        println!("[{}]: {l}", i + 1);
    }
}
