s = gets
puts s.count("aeiou")
