#[test]
fn scratch() {
    let text = r#"{
  "apiKey": 500, "type": "response", "name": "ProbeResponse",
  "validVersions": "0-3", "flexibleVersions": "1+",
  "fields": [
    { "name": "A", "type": "string", "versions": "1+", "nullableVersions": "1+", "tag": 0, "taggedVersions": "1+", "default": "x" },
    { "name": "B", "type": "Inner", "versions": "1+", "nullableVersions": "1+", "tag": 1, "taggedVersions": "1+", "default": "null", "fields": [
       { "name": "C", "type": "int32", "versions": "1+" } ] },
    { "name": "D", "type": "string", "versions": "2+", "tag": 2, "taggedVersions": "2+" }
  ]
}"#;
    let out = kwire_codegen::Builder::new().generate(vec![kwire_codegen::SourceFile { path: "ProbeResponse.json".into(), text: text.into() }]).unwrap();
    println!("{out}");
}
