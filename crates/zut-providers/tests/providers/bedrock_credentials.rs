//! Bedrock credentials that zut fetches itself: a profile's `role_arn` +
//! `source_profile` (STS `AssumeRole`, SigV4-signed), a web identity token
//! (`AssumeRoleWithWebIdentity`) and an SSO login (the cached token, then
//! the portal's `GetRoleCredentials`). STS and the portal are the local
//! zut-llm-server, reached through AWS's own endpoint variables.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::*;
use zut_llm_server::{LlmServer, Script};
use zut_providers::{resolve, Provider, ProviderOptions};

const MODEL: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

fn sts_answer(action: &str, key: &str) -> String {
    format!(
        "<{action}Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><{action}Result>\
         <Credentials><AccessKeyId>{key}</AccessKeyId><SecretAccessKey>stssecret</SecretAccessKey>\
         <SessionToken>ststoken</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>\
         </{action}Result></{action}Response>"
    )
}

struct Setup {
    server: LlmServer,
    home: tempfile::TempDir,
}

impl Setup {
    async fn new(config: &str) -> Setup {
        let server = LlmServer::start().await.unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".aws")).unwrap();
        std::fs::write(home.path().join(".aws").join("config"), config).unwrap();
        Setup { server, home }
    }

    fn provider(&self, vars: &[(&str, &str)]) -> Result<Provider, String> {
        let opts = ProviderOptions {
            provider: Some("amazon-bedrock".into()),
            base_url: Some(self.server.url()),
            model: Some(MODEL.into()),
            ..Default::default()
        };
        let mut vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        vars.push(("HOME".into(), self.home.path().display().to_string()));
        vars.push(("AWS_ENDPOINT_URL".into(), self.server.url()));
        let env = move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let config = resolve(&opts, &env, self.home.path()).map_err(|e| e.to_string())?;
        Provider::new(config).map_err(|e| e.to_string())
    }
}

async fn turn(provider: &Provider) -> Result<(), String> {
    run(provider, &request("hi"))
        .await
        .0
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn assume_role_with_a_source_profile_is_signed_cached_and_used() {
    let s = Setup::new(
        "[profile base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = basesecret\n\
         [profile ops]\nregion = us-west-2\nrole_arn = arn:aws:iam::123456789012:role/ops\n\
         source_profile = base\nrole_session_name = zut-test\nexternal_id = ext-1\n\
         [profile orphan]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = nowhere\n\
         [profile loop]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = loop2\n\
         [profile loop2]\nrole_arn = arn:aws:iam::1:role/y\nsource_profile = loop\n",
    )
    .await;
    s.server
        .push(Script::json(200, sts_answer("AssumeRole", "ASIAROLE")).when("Action=AssumeRole"));
    for _ in 0..2 {
        s.server.push(Script::bedrock_text("ok").unless("Action="));
    }
    let provider = s.provider(&[("AWS_PROFILE", "ops")]).unwrap();
    assert_eq!(
        s.server.request_count(),
        0,
        "nothing is fetched before a turn"
    );
    turn(&provider).await.unwrap();
    turn(&provider).await.unwrap();
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 3, "one AssumeRole for two turns: {reqs:#?}");
    let sts = &reqs[0];
    assert_eq!((sts.method.as_str(), sts.path.as_str()), ("POST", "/"));
    assert_eq!(
        sts.raw_body,
        "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fops\
         &RoleSessionName=zut-test&ExternalId=ext-1"
    );
    let auth = sts.header("authorization").unwrap();
    assert!(
        auth.contains("Credential=AKIDBASE/") && auth.contains("/us-west-2/sts/aws4_request"),
        "{auth}"
    );
    for r in &reqs[1..] {
        let auth = r.header("authorization").unwrap();
        assert!(auth.contains("Credential=ASIAROLE/"), "{auth}");
        assert!(auth.contains("/bedrock/aws4_request"), "{auth}");
        assert_eq!(r.header("x-amz-security-token"), Some("ststoken"));
    }

    // STS refusing the role: its code and message, the profile, nothing sent to Bedrock.
    s.server.push(Script::json(
        403,
        "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>\
         <Message>User is not authorized to perform: sts:AssumeRole</Message></Error></ErrorResponse>",
    ));
    let provider = s.provider(&[("AWS_PROFILE", "ops")]).unwrap();
    let err = turn(&provider).await.unwrap_err();
    assert!(
        err.contains("profile ops in")
            && err.contains("403 AccessDenied")
            && err.contains("not authorized to perform: sts:AssumeRole"),
        "{err}"
    );
    assert_eq!(s.server.requests().len(), 4);

    // A source profile without keys, and a circular chain: clear errors at resolve time.
    let err = s.provider(&[("AWS_PROFILE", "orphan")]).unwrap_err();
    assert!(err.contains("source_profile nowhere"), "{err}");
    let err = s.provider(&[("AWS_PROFILE", "loop")]).unwrap_err();
    assert!(err.contains("circular"), "{err}");
}

#[tokio::test]
async fn web_identity_from_the_environment_and_from_a_profile() {
    let s = Setup::new("").await;
    let token = s.home.path().join("token");
    std::fs::write(&token, "eyJ.web.token\n").unwrap();
    let token_s = token.display().to_string();
    std::fs::write(
        s.home.path().join(".aws").join("config"),
        format!(
            "[profile k8s]\nrole_arn = arn:aws:iam::1:role/pod\nweb_identity_token_file = {token_s}\n"
        ),
    )
    .unwrap();
    for profile in [None, Some("k8s")] {
        let before = s.server.requests().len();
        s.server.push(
            Script::json(200, sts_answer("AssumeRoleWithWebIdentity", "ASIAWEB"))
                .when("AssumeRoleWithWebIdentity"),
        );
        s.server.push(Script::bedrock_text("ok").unless("Action="));
        let vars: Vec<(&str, &str)> = match profile {
            None => vec![
                ("AWS_WEB_IDENTITY_TOKEN_FILE", token_s.as_str()),
                ("AWS_ROLE_ARN", "arn:aws:iam::1:role/pod"),
                ("AWS_ROLE_SESSION_NAME", "pod-1"),
            ],
            Some(p) => vec![("AWS_PROFILE", p)],
        };
        turn(&s.provider(&vars).unwrap()).await.unwrap();
        let reqs = s.server.requests_since(before);
        assert_eq!(reqs.len(), 2);
        assert!(reqs[0].header("authorization").is_none(), "unsigned");
        assert!(reqs[0]
            .raw_body
            .starts_with("Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fpod&RoleSessionName="));
        assert!(reqs[0]
            .raw_body
            .ends_with("&WebIdentityToken=eyJ.web.token"));
        if profile.is_none() {
            assert!(reqs[0].raw_body.contains("RoleSessionName=pod-1&"));
        }
        assert!(reqs[1]
            .header("authorization")
            .unwrap()
            .contains("Credential=ASIAWEB/"));
    }

    // A missing token file names the file and the variable.
    let before = s.server.requests().len();
    let provider = s
        .provider(&[
            ("AWS_WEB_IDENTITY_TOKEN_FILE", "/nonexistent/zut-token"),
            ("AWS_ROLE_ARN", "arn:aws:iam::1:role/pod"),
        ])
        .unwrap();
    let err = turn(&provider).await.unwrap_err();
    assert!(
        err.contains("/nonexistent/zut-token") && err.contains("AWS_WEB_IDENTITY_TOKEN_FILE"),
        "{err}"
    );
    assert_eq!(s.server.requests().len(), before);
}

/// `sha1("corp")`, the name `aws sso login` gives the session's token cache.
const CORP_CACHE: &str = "ee0bfd2552fbd840c02cc48b6e823320543c450f.json";

fn write_token(home: &Path, expires_at: &str) {
    let dir = home.join(".aws").join("sso").join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(CORP_CACHE),
        format!(
            r#"{{"startUrl": "https://corp.awsapps.com/start", "region": "us-east-1", "accessToken": "ssotoken", "expiresAt": "{expires_at}"}}"#
        ),
    )
    .unwrap();
}

#[tokio::test]
async fn sso_session_profiles_use_the_cached_token() {
    let s = Setup::new(
        "[profile dev]\nregion = us-west-2\nsso_session = corp\nsso_account_id = 111122223333\n\
         sso_role_name = Dev Role\n\
         [sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n\
         [profile half]\nsso_session = corp\n",
    )
    .await;
    let vars = [("AWS_PROFILE", "dev")];

    // No login yet.
    let err = turn(&s.provider(&vars).unwrap()).await.unwrap_err();
    assert!(
        err.contains(CORP_CACHE) && err.contains("run `aws sso login --profile dev`"),
        "{err}"
    );
    // An expired login.
    write_token(s.home.path(), "2020-01-01T00:00:00Z");
    let err = turn(&s.provider(&vars).unwrap()).await.unwrap_err();
    assert!(
        err.contains("expired at 2020-01-01T00:00:00Z")
            && err.contains("aws sso login --profile dev"),
        "{err}"
    );
    assert_eq!(s.server.request_count(), 0);

    // A valid one: GetRoleCredentials, then Bedrock signed with the role's keys.
    write_token(s.home.path(), "2099-01-01T00:00:00Z");
    s.server.push(
        Script::json(
            200,
            r#"{"roleCredentials": {"accessKeyId": "ASIASSO", "secretAccessKey": "ssosecret", "sessionToken": "ssosession", "expiration": 4102444800000}}"#,
        )
        .when("")
        .unless("messages"),
    );
    s.server.push(Script::bedrock_text("ok"));
    turn(&s.provider(&vars).unwrap()).await.unwrap();
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].method, "GET");
    assert_eq!(
        reqs[0].path,
        "/federation/credentials?role_name=Dev%20Role&account_id=111122223333"
    );
    assert_eq!(reqs[0].header("x-amz-sso_bearer_token"), Some("ssotoken"));
    let auth = reqs[1].header("authorization").unwrap();
    assert!(
        auth.contains("Credential=ASIASSO/") && auth.contains("/us-west-2/bedrock/"),
        "{auth}"
    );
    assert_eq!(reqs[1].header("x-amz-security-token"), Some("ssosession"));

    // The portal refusing the token says to log in again.
    s.server.push(Script::json(
        401,
        r#"{"message": "Session token not found or invalid"}"#,
    ));
    let err = turn(&s.provider(&vars).unwrap()).await.unwrap_err();
    assert!(
        err.contains("401: Session token not found or invalid")
            && err.contains("aws sso login --profile dev"),
        "{err}"
    );

    // A profile missing its account is refused when resolved.
    let err = s.provider(&[("AWS_PROFILE", "half")]).unwrap_err();
    assert!(err.contains("without sso_account_id"), "{err}");
}

/// ECS / EKS Pod Identity: the container endpoint with its token file.
#[tokio::test]
async fn container_credentials_endpoint() {
    let s = Setup::new("").await;
    let token = s.home.path().join("eks-token");
    std::fs::write(&token, "pod-identity-token\n").unwrap();
    let full = format!("{}/v1/credentials", s.server.url());
    let token_s = token.display().to_string();
    let vars = [
        ("AWS_CONTAINER_CREDENTIALS_FULL_URI", full.as_str()),
        ("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", token_s.as_str()),
    ];
    s.server.push(
        Script::json(
            200,
            r#"{"AccessKeyId": "ASIAPOD", "SecretAccessKey": "podsecret", "Token": "podtoken", "Expiration": "2099-01-01T00:00:00Z"}"#,
        )
        .when("")
        .unless("messages"),
    );
    s.server.push(Script::bedrock_text("ok"));
    turn(&s.provider(&vars).unwrap()).await.unwrap();
    let reqs = s.server.requests();
    assert_eq!(
        (reqs[0].method.as_str(), reqs[0].path.as_str()),
        ("GET", "/v1/credentials")
    );
    assert_eq!(reqs[0].header("authorization"), Some("pod-identity-token"));
    assert!(reqs[1]
        .header("authorization")
        .unwrap()
        .contains("Credential=ASIAPOD/"));
    assert_eq!(reqs[1].header("x-amz-security-token"), Some("podtoken"));

    // A plain-HTTP full URI to another host is refused, naming the variable.
    let err = s
        .provider(&[(
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            "http://example.com/creds",
        )])
        .unwrap_err();
    assert!(err.contains("AWS_CONTAINER_CREDENTIALS_FULL_URI"), "{err}");
}
