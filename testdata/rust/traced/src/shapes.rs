//! Methods and trait default methods.

pub trait Area {
    fn area(&self) -> f64;

    /// A default method: measured where the trait defines it.
    #[regio::traced]
    fn label(&self) -> String {
        format!("shape with area {:.1}", self.area())
    }
}

pub struct Square(pub f64);
pub struct Circle(pub f64);

impl Area for Square {
    #[regio::traced]
    fn area(&self) -> f64 {
        self.0 * self.0
    }
}

impl Area for Circle {
    #[regio::traced]
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.0 * self.0
    }
}

impl Square {
    #[regio::traced]
    pub fn describe(&self) -> String {
        format!("square of side {}", self.0)
    }
}
