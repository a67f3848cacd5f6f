trait Shape {
    #[regio::traced]
    fn area(&self) -> f64;
}

fn main() {}
