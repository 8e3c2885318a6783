# hotlines_1_1.gp: rendered by attnlab-report from run.json of run 4/20261122T215639Z-dcabdff.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot hotlines_1_1.gp (reads hotlines_1_1.dat, writes hotlines_1_1.png)
set terminal png size 900,500 enhanced font 'DejaVu Sans,10'
set output 'hotlines_1_1.png'
set title 'PC samples by source line and stall reason\nthroughput 16x16x2048x64' noenhanced
set ylabel 'PC samples'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb '#333333'
set boxwidth 0.6
set key outside right top vertical invert noenhanced title 'stall reason'
set grid ytics
set yrange [0:*]
set xtics rotate by -30 noenhanced
plot 'hotlines_1_1.dat' using 2:xtic(1) lc rgb '#1f77b4' title columnheader(2), \
     '' using 3 lc rgb '#7f7f7f' title columnheader(3), \
     '' using 4 lc rgb '#bcbd22' title columnheader(4), \
     '' using 5 lc rgb '#aec7e8' title columnheader(5), \
     '' using 6 lc rgb '#c5b0d5' title columnheader(6), \
     '' using 7 lc rgb '#c49c94' title columnheader(7), \
     '' using 8 lc rgb '#dbdb8d' title columnheader(8)
