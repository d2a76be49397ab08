import Foundation
import Testing
@testable import ManashikiSync

@Suite("The small XML reader S3 and STS answers go through")
struct S3XMLTests {
    @Test("an S3 error document, with its declaration, namespace and entities")
    func errorDocument() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment -->
        <Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Code>AccessDenied</Code><Message>Access &amp; &lt;denied&gt; &#233;&#x263A;</Message>
          <Key>a b/ü+$.bin</Key><Region>eu-west-1</Region><RequestId>4442587FB7D0A2F9</RequestId></Error>
        """
        let root = try S3XML(Data(xml.utf8)).root
        #expect(root.name == "Error" && root.value("Code") == "AccessDenied" && root.value("Region") == "eu-west-1")
        #expect(root.value("Message") == "Access & <denied> é☺" && root.value("Key") == "a b/ü+$.bin")
    }

    @Test("a listing: repeated elements, self-closing ones, CDATA, prefixed names")
    func listing() throws {
        let xml = """
        <ListBucketResult><Name>models</Name><Prefix/><IsTruncated>true</IsTruncated>
        <Contents><Key>p/index.json</Key><Size>12</Size></Contents><Contents><Key><![CDATA[p/<odd>&key]]></Key><Size>3</Size></Contents>
        <s3:NextContinuationToken xmlns:s3="x">tok==</s3:NextContinuationToken></ListBucketResult>
        """
        let root = try S3XML(Data(xml.utf8)).root
        #expect(root.children("Contents").compactMap { $0.value("Key") } == ["p/index.json", "p/<odd>&key"])
        #expect(root.value("Prefix") == "" && root.value("IsTruncated") == "true" && root.value("NextContinuationToken") == "tok==")
    }

    @Test("malformed or hostile input is refused, never crashes", arguments: [
        "", "plain text", "<a><b></a>", "<a>", "<a>&bogus;</a>", "<a>&amp</a>", "<a/><b/>", "<a>&#xFFFFFFFF;</a>",
        String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40),
    ])
    func refuses(text: String) {
        #expect(throws: S3XML.Malformed.self) { try S3XML(Data(text.utf8)) }
    }
}
