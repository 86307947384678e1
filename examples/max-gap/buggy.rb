n = gets.to_i
a = gets.split.map(&:to_i)
best = 0
(1...n).each { |i| best = [best, a[i] - a[i - 1]].max }
puts best
