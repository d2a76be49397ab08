import Foundation
import Testing
@testable import ManashikiSync

@Suite("The AWS shared credentials and config files")
struct AWSProfileTests {
    static let credentials = """
    # a comment
    [default]
    aws_access_key_id = AKIADEFAULT
    aws_secret_access_key = default/secret+key ; an inline comment

    [ci]
    aws_access_key_id=AKIACI
    aws_secret_access_key=ci-secret
    aws_session_token = ci-token
    """
    static let config = """
    [default]
    region = eu-west-1
    [profile ci]
    region = us-west-2
    aws_access_key_id = AKIAOVERRIDDEN
    s3 =
      addressing_style = path
      endpoint_url = https://nested.example
    [profile irsa]
    role_arn = arn:aws:iam::123456789012:role/models-reader
    web_identity_token_file = /var/run/secrets/token
    """

    static func environment(_ variables: [String: String]) -> SyncEnvironment {
        SyncEnvironment(variables: variables.merging(["HOME": "/home/u"]) { a, _ in a }, readFile: { url in
            switch url.path {
            case "/home/u/.aws/credentials": return credentials
            case "/home/u/.aws/config": return config
            case "/etc/creds": return "[other]\naws_access_key_id = AKIAOTHER\naws_secret_access_key = s\n"
            default: throw CocoaError(.fileNoSuchFile)
            }
        })
    }

    @Test("sections and keys: comments, inline comments, spaces, nested keys")
    func parsing() {
        let sections = AWSProfile.sections(Self.config)
        #expect(sections["profile ci"]?["s3.addressing_style"] == "path" && sections["profile ci"]?["s3.endpoint_url"] == "https://nested.example")
        #expect(AWSProfile.sections(Self.credentials)["default"]?["aws_secret_access_key"] == "default/secret+key")
    }

    @Test("a profile merges the config file's [profile NAME] and the credentials file's [NAME], the credentials file winning")
    func merging() throws {
        let ci = try #require(AWSProfile.load("ci", environment: Self.environment([:])))
        #expect(ci.value("aws_access_key_id") == "AKIACI" && ci.value("region") == "us-west-2" && ci.value("aws_session_token") == "ci-token")
        #expect(ci.files == ["/home/u/.aws/config", "/home/u/.aws/credentials"])
        #expect(AWSProfile.load("default", environment: Self.environment([:]))?.value("region") == "eu-west-1")
        #expect(AWSProfile.load("nope", environment: Self.environment([:])) == nil)
    }

    @Test("AWS_PROFILE, then AWS_DEFAULT_PROFILE, then default; AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE move the files")
    func selection() {
        #expect(AWSProfile.selectedName(["AWS_PROFILE": "ci", "AWS_DEFAULT_PROFILE": "x"]) == ("ci", true))
        #expect(AWSProfile.selectedName(["AWS_DEFAULT_PROFILE": "x"]) == ("x", true))
        #expect(AWSProfile.selectedName([:]) == ("default", false))
        let moved = Self.environment(["AWS_SHARED_CREDENTIALS_FILE": "/etc/creds", "AWS_CONFIG_FILE": "/nowhere"])
        #expect(AWSProfile.load("other", environment: moved)?.value("aws_access_key_id") == "AKIAOTHER")
        #expect(AWSProfile.files(["HOME": "/h", "AWS_CONFIG_FILE": "~/cfg"]) == ("/h/.aws/credentials", "/h/cfg"))
    }
}
