n = gets.to_i
a = gets.split.map(&:to_i)
puts a[1..n].map { |x| x * 2 }.join(" ")
