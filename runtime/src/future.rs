//! Async regions: a future measured from its first poll to completion.
//!
//! Each poll is a frame like any region entry (so what the future calls
//! while being polled nests under it, on whatever thread polls it), but only
//! the first poll counts as a call. On completion the span since the first
//! poll is recorded on the node of the last poll, so a report can show the
//! time spent inside polls (inclusive time), the whole span, and the
//! difference: time spent waiting.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::api::{enter_poll, exit_poll};
use crate::region::Region;

/// A future measured as `region` (what `#[regio::traced]` wraps an
/// `async fn` body in).
#[must_use = "futures do nothing unless polled"]
pub struct Instrumented<F> {
    future: F,
    region: &'static Region,
    /// Entry tick of the first recorded poll; 0 before it.
    first_poll: u64,
}

impl<F: Future> Instrumented<F> {
    pub fn new(region: &'static Region, future: F) -> Instrumented<F> {
        Instrumented {
            future,
            region,
            first_poll: 0,
        }
    }
}

/// Closes the poll's frame if the inner poll unwinds.
struct PollFrame {
    id: u32,
}

impl Drop for PollFrame {
    fn drop(&mut self) {
        exit_poll(self.id, None);
    }
}

impl<F: Future> Future for Instrumented<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: it is never moved out of
        // `self`, and the other fields are plain data.
        let this = unsafe { self.get_unchecked_mut() };
        let id = crate::select::descriptor_id(this.region);
        let tick = enter_poll(id, this.first_poll == 0);
        if this.first_poll == 0 {
            this.first_poll = tick;
        }
        let frame = PollFrame { id };
        // SAFETY: see above; `this.future` stays where it is.
        let result = unsafe { Pin::new_unchecked(&mut this.future) }.poll(cx);
        std::mem::forget(frame);
        match result {
            Poll::Ready(v) => {
                let first = (this.first_poll != 0).then_some(this.first_poll);
                exit_poll(id, first);
                Poll::Ready(v)
            }
            Poll::Pending => {
                exit_poll(id, None);
                Poll::Pending
            }
        }
    }
}
