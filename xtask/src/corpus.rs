pub struct Options { pub keep: bool } impl Default for Options { fn default() -> Self { Options { keep: false } } } pub fn run(_d: &std::path::Path, _o: &Options) -> anyhow::Result<bool> { Ok(true) }
