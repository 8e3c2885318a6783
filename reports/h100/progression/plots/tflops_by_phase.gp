# tflops_by_phase.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_by_phase.gp (reads tflops_by_phase.dat, writes tflops_by_phase.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'tflops_by_phase.png'
set title "TFLOPS by phase: newest ok record of each shape, headline regime at device time\npoints: median, bars: p10-p90; hollow points: span only (busy time not recorded)" noenhanced
set datafile missing '?'
set ylabel 'TFLOPS'
set key above noenhanced
set grid xtics ytics lc rgb '#dddddd'
set xtics noenhanced
set logscale y
set yrange [0.1:3000]
set xtics rotate by -30
set xrange [-0.6:14.6]
set xlabel 'phase'
plot 'tflops_by_phase.dat' using ($0 + -0.166666667):2:3:4:6:xtic(1) with yerrorbars pt variable ps 1.3 lw 1.5 lc rgb '#1f77b4' title 'latency 1x8x512x64', \
     'tflops_by_phase.dat' using ($0 + 0.166666667):7:8:9:11 with yerrorbars pt variable ps 1.3 lw 1.5 lc rgb '#ff7f0e' title 'throughput 16x16x2048x64', \
     '' using ($0 + -0.166666667):4:5 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0.166666667):9:10 with labels rotate by 90 left offset 0,0.6 font ',8' notitle
