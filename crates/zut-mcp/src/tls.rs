//! The rustls crypto provider for the MCP HTTP clients (ring, as the
//! providers' HTTP client uses).

/// Installs ring as the process-wide rustls provider unless one is set.
pub fn install_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
