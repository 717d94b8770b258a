//! [`CountingLayer`]: the counting layer as an app puts it in front of its
//! routes, whether or not this site counts. Counting off (the builder's
//! [`counting(false)`](crate::Builder::counting), or day keys that could
//! not be written), it passes every request through untouched.

use activity::recording::{ActivityLayer, ActivityService};
use tower::layer::Layer;
use tower::util::Either;

/// Counts every request of the service it wraps, or (counting off)
/// passes it through. Cheap to clone.
#[derive(Clone, Debug)]
pub struct CountingLayer(pub(crate) Option<ActivityLayer>);

impl CountingLayer {
    /// Whether requests through it are counted.
    pub fn counts(&self) -> bool {
        self.0.is_some()
    }
}

impl<S> Layer<S> for CountingLayer {
    type Service = Either<ActivityService<S>, S>;

    fn layer(&self, inner: S) -> Self::Service {
        match &self.0 {
            Some(layer) => Either::Left(layer.layer(inner)),
            None => Either::Right(inner),
        }
    }
}
