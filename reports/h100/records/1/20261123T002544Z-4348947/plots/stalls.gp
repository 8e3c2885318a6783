# stalls.gp: rendered by attnlab-report from run.json of run 1/20261123T002544Z-4348947.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot stalls.gp (reads stalls.dat, writes stalls.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'stalls.png'
set title "Warp stall breakdown: warps stalled per issued instruction, by reason\nfixed order and colour per reason; 'selected' (the issuing warp, always 1) not stacked" noenhanced
set ylabel 'stalled warps per issued instruction'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb '#333333'
set boxwidth 0.6
set key outside right top vertical invert noenhanced title 'reason (as stacked)'
set grid ytics
set yrange [0:*]
set xtics noenhanced
plot 'stalls.dat' using 2:xtic(1) lc rgb '#1f77b4' title columnheader(2), \
     '' using 3 lc rgb '#ff7f0e' title columnheader(3), \
     '' using 4 lc rgb '#2ca02c' title columnheader(4), \
     '' using 5 lc rgb '#d62728' title columnheader(5), \
     '' using 6 lc rgb '#8c564b' title columnheader(6), \
     '' using 7 lc rgb '#7f7f7f' title columnheader(7), \
     '' using 8 lc rgb '#bcbd22' title columnheader(8), \
     '' using 9 lc rgb '#aec7e8' title columnheader(9), \
     '' using 10 lc rgb '#ffbb78' title columnheader(10), \
     '' using 11 lc rgb '#98df8a' title columnheader(11), \
     '' using 12 lc rgb '#ff9896' title columnheader(12), \
     '' using 13 lc rgb '#c49c94' title columnheader(13), \
     '' using 14 lc rgb '#dbdb8d' title columnheader(14)
