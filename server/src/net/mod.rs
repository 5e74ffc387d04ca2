//! The network: the [`server`] (listener, accept loop, shutdown), one [`connection`] per
//! client (its [`reader`] and [`writer`]), the [`framing`] of requests and answers, and what
//! the connections [`shared`]. The network is the top of the server: it imports the router and
//! below, and nothing imports it but the library's surface.

pub mod connection;
pub mod framing;
pub mod reader;
pub mod server;
pub mod shared;
pub mod writer;
