//! A second crate in the same binary (this package's library): its `leaf`
//! has the same name as the binary's and must stay a separate region.

#[regio::traced]
pub fn leaf(x: u64) -> u64 {
    x + 1000
}
