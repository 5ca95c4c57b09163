fn main() {
    println!("sebx");
}
