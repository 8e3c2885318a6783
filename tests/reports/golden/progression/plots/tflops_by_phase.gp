# tflops_by_phase.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_by_phase.gp (reads tflops_by_phase.dat, writes tflops_by_phase.png)
set terminal png size 900,410 enhanced font 'DejaVu Sans,10'
set output 'tflops_by_phase.png'
set multiplot layout 1,2 title "TFLOPS by phase, one panel per shape: newest ok record, headline regime at device time; points: median, bars: p10-p90 (linear axes)\nfilled: busy time, hollow: span only; circle: the board and session of most figures, triangle: another board (§), square: another session on it (¶)" noenhanced font ',9'
set ylabel 'TFLOPS'
unset key
set grid ytics lc rgb '#dddddd'
set errorbars large
set xtics ('1' 0, '4' 1) rotate by -60 font ',7' noenhanced
set xrange [-0.7:1.7]

set title 'latency 1x8x512x64' noenhanced font ',9'
set yrange [0:15.7944502]
plot 'tflops_by_phase.dat' index 0 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 0 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title 'throughput 16x16x2048x64' noenhanced font ',9'
set yrange [0:31.053299]
plot 'tflops_by_phase.dat' index 1 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 1 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced
unset multiplot
